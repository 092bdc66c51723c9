import { listTraces } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { spansRoutes } from '../../../shared/schemas/routes/spans.ts';
import { agentsRepository } from '../../../shared/store/agents.ts';
import { tracesRepository } from '../../../shared/store/traces.ts';

export const handler = httpRoute('spans/list-traces', spansRoutes, routePorts({ agents: agentsRepository, traces: tracesRepository }), async ({ query, principal }, ports) =>
  paged(await listTraces(ports.store, tenantOf(principal), query), query),
);
