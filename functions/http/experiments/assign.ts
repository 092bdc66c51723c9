import { assignSubject } from '#shared/domain/experiments/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { experimentsRoutes } from '#shared/schemas/routes/experiments.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { routePorts } from '#shared/wiring/routes.ts';

/** A subject's variant never changes; only the experiment's status can, so clients may reuse an answer briefly. */
const CACHE_HEADERS = { 'Cache-Control': 'private, max-age=30' };

export const handler = httpRoute(
  'experiments/assign',
  experimentsRoutes,
  routePorts({ experiments: experimentsRepository, agents: agentsRepository }),
  async ({ params, query, principal }, ports) => ({
    ...ok(await assignSubject(tenantOf(principal), params.id, query.subjectId, ports)),
    headers: CACHE_HEADERS,
  }),
);
