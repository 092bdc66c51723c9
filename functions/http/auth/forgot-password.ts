import { sqsQueue } from '#shared/adapters/queue.ts';
import { forgotPassword } from '#shared/domain/accounts/users.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { linkTokensRepository } from '#shared/store/link-tokens.ts';
import { usersRepository } from '#shared/store/users.ts';
import { accountsDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'auth/forgot-password',
  authRoutes,
  routePorts({ users: usersRepository, linkTokens: linkTokensRepository }, { queue: sqsQueue }),
  async ({ body, clientAddress }, ports) => ok(await forgotPassword(body, await clientAddress(), accountsDeps(ports))),
);
