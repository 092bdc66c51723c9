import { ask } from '#shared/domain/lake/ask.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { searchRoutes } from '#shared/schemas/routes/search.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { lakeReader, queryTranslator } from '#shared/wiring/lake.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'search/ask',
  searchRoutes,
  routePorts({ agents: agentsRepository, traces: tracesRepository }, { lake: lakeReader, translator: queryTranslator }),
  async ({ body, principal }, ports) => {
    const { hits, ...answer } = await ask(tenantOf(principal), body, ports);
    return ok({ ...answer, results: hits });
  },
);
