import { listExperiments } from '#shared/domain/experiments/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { experimentsRoutes } from '#shared/schemas/routes/experiments.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute(
  'experiments/list',
  experimentsRoutes,
  routePorts({ experiments: experimentsRepository, agents: agentsRepository }),
  ({ query, principal }, page, ports) => listExperiments(tenantOf(principal), query, page, ports),
);
