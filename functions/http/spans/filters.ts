import { filterOptions } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { spansRoutes } from '#shared/schemas/routes/spans.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'spans/filters',
  spansRoutes,
  routePorts({ agents: agentsRepository, traces: tracesRepository }),
  async ({ principal }, ports) => ok(await filterOptions(ports.store, tenantOf(principal))),
);
