import { getTrace } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { spansRoutes } from '#shared/schemas/routes/spans.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('spans/get-trace', spansRoutes, routePorts({ traces: tracesRepository }), async ({ params, principal }, ports) =>
  ok(await getTrace(ports.store, tenantOf(principal), params.traceId)),
);
