import { searchTraces } from '#shared/domain/lake/search.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { cursorPaged } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { searchRoutes } from '#shared/schemas/routes/search.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { lakeReader } from '#shared/wiring/lake.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'search/traces',
  searchRoutes,
  routePorts({ agents: agentsRepository, traces: tracesRepository }, { lake: lakeReader }),
  async ({ query, principal }, ports) => {
    const page = await searchTraces(tenantOf(principal), query, ports);
    return cursorPaged(page.hits, page.pagination);
  },
);
