import { signalsOfTrace } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { signalsRoutes } from '#shared/schemas/routes/signals.ts';
import { signalsRepository } from '#shared/store/timeline.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'signals/of-trace',
  signalsRoutes,
  routePorts({ signals: signalsRepository, traces: tracesRepository }),
  async ({ params, principal }, ports) => ok(await signalsOfTrace(ports.store, tenantOf(principal), params.traceId)),
);
