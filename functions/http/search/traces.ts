import { lakeReader } from '#shared/adapters/lake-ports.ts';
import { searchTraces } from '#shared/domain/lake/search.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { cursorPaged } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { searchRoutes } from '#shared/schemas/routes/search.ts';
import { agentsRepository } from '#shared/store/agents.ts';

export const handler = httpRoute(
  'search/traces',
  searchRoutes,
  routePorts({ agents: agentsRepository }, { lake: lakeReader }),
  async ({ query, principal }, ports) => {
    const page = await searchTraces(tenantOf(principal), query, ports);
    return cursorPaged(page.hits, page.pagination);
  },
);
