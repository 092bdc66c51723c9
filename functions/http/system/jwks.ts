import { raw } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';
import { routePorts } from '#shared/wiring/routes.ts';

/** The public half of the signing key, in the standard JWKS form verifiers expect (not enveloped). */
export const handler = httpRoute('system/jwks', systemRoutes, routePorts(), async (_request, ports) => {
  const { publicJwk } = await ports.signing();
  return raw(200, { keys: [publicJwk] }, { 'Cache-Control': 'public, max-age=300' });
});
