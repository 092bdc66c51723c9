import { sqsQueue } from '#shared/adapters/queue.ts';
import { startSignIn } from '#shared/domain/accounts/sessions.ts';
import { register } from '#shared/domain/accounts/users.ts';
import { refreshCookie, withCookie } from '#shared/http/cookies.ts';
import { created } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { linkTokensRepository } from '#shared/store/link-tokens.ts';
import { refreshTokensRepository } from '#shared/store/refresh-tokens.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { usersRepository } from '#shared/store/users.ts';
import { accountsDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'auth/register',
  authRoutes,
  routePorts(
    { users: usersRepository, tenants: tenantsRepository, linkTokens: linkTokensRepository, refreshTokens: refreshTokensRepository },
    { queue: sqsQueue },
  ),
  async ({ body }, ports) => {
    const session = await register(body, accountsDeps(ports));
    return withCookie(created(session), refreshCookie(await startSignIn(session.user, ports)));
  },
);
