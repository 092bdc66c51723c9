import { endSignIn } from '#shared/domain/accounts/sessions.ts';
import { refreshCookie, refreshTokenOf, withCookie } from '#shared/http/cookies.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { refreshTokensRepository } from '#shared/store/refresh-tokens.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('auth/logout', authRoutes, routePorts({ refreshTokens: refreshTokensRepository }), async ({ event }, ports) =>
  withCookie(ok(await endSignIn(refreshTokenOf(event), ports)), refreshCookie(undefined)),
);
