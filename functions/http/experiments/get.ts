import { getExperiment } from '#shared/domain/experiments/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { experimentsRoutes } from '#shared/schemas/routes/experiments.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'experiments/get',
  experimentsRoutes,
  routePorts({ experiments: experimentsRepository, agents: agentsRepository }),
  async ({ params, principal }, ports) => ok(await getExperiment(tenantOf(principal), params.id, ports)),
);
