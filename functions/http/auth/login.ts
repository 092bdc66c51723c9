import { sqsQueue } from '#shared/adapters/queue.ts';
import { startSignIn } from '#shared/domain/accounts/sessions.ts';
import { login } from '#shared/domain/accounts/users.ts';
import { refreshCookie, withCookie } from '#shared/http/cookies.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { refreshTokensRepository } from '#shared/store/refresh-tokens.ts';
import { signInFailuresRepository } from '#shared/store/sign-in-failures.ts';
import { usersRepository } from '#shared/store/users.ts';
import { accountsDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'auth/login',
  authRoutes,
  routePorts({ users: usersRepository, refreshTokens: refreshTokensRepository, signInFailures: signInFailuresRepository }, { queue: sqsQueue }),
  async ({ body }, ports) => {
    const { session, user } = await login(body, accountsDeps(ports));
    return withCookie(ok(session), refreshCookie(await startSignIn(user, ports)));
  },
);
