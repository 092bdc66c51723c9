import { resetPassword } from '#shared/domain/accounts/users.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { linkTokensRepository } from '#shared/store/link-tokens.ts';
import { usersRepository } from '#shared/store/users.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'auth/reset-password',
  authRoutes,
  routePorts({ users: usersRepository, linkTokens: linkTokensRepository }),
  async ({ body }, ports) => ok(await resetPassword(body, ports)),
);
