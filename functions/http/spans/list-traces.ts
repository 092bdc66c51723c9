import { listTraces } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { spansRoutes } from '#shared/schemas/routes/spans.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

const ports = routePorts({
  agents: agentsRepository,
  traces: tracesRepository,
  rollups: rollupsRepository,
  sessions: sessionsRepository,
  tenants: tenantsRepository,
});

export const handler = listRoute('spans/list-traces', spansRoutes, ports, ({ query, principal }, page, { store, clock }) =>
  listTraces(store, clock, tenantOf(principal), query, page),
);
