import { config } from '#shared/config.ts';
import { hostedSignInProviders } from '#shared/external-issuers.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('auth/hosted-sign-in', authRoutes, routePorts(), async () =>
  ok({ providers: hostedSignInProviders(config.jwt.externalIssuers, config.publicAppUrl) }),
);
