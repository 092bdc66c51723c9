import { refreshSignIn } from '#shared/domain/accounts/sessions.ts';
import { UnauthorizedError } from '#shared/domain/errors.ts';
import { refreshCookie, refreshTokenOf, withCookie } from '#shared/http/cookies.ts';
import { ok, raw } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { refreshTokensRepository } from '#shared/store/refresh-tokens.ts';
import { usersRepository } from '#shared/store/users.ts';
import { accountsDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'auth/refresh',
  authRoutes,
  routePorts({ users: usersRepository, refreshTokens: refreshTokensRepository }),
  async ({ event }, ports) => {
    try {
      const { session, refresh } = await refreshSignIn(refreshTokenOf(event), accountsDeps(ports));
      return withCookie(ok(session), refreshCookie(refresh));
    } catch (err) {
      // A refused token is dropped from the browser too.
      if (!(err instanceof UnauthorizedError)) throw err;
      return withCookie(raw(err.status, { success: false, error: { code: err.code, message: err.message } }), refreshCookie(undefined));
    }
  },
);
