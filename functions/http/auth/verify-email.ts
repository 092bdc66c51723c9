import { verifyEmail } from '#shared/domain/accounts/users.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { linkTokensRepository } from '#shared/store/link-tokens.ts';
import { usersRepository } from '#shared/store/users.ts';

export const handler = httpRoute(
  'auth/verify-email',
  authRoutes,
  routePorts({ users: usersRepository, linkTokens: linkTokensRepository }),
  async ({ query }, ports) => ok(await verifyEmail(query, ports)),
);
