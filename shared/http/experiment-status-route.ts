import type { ExperimentAction } from '../domain/experiments/lifecycle.ts';
import { changeExperimentStatus } from '../domain/experiments/service.ts';
import { experimentsRoutes } from '../schemas/routes/experiments.ts';
import { agentsRepository } from '../store/agents.ts';
import { experimentsRepository } from '../store/experiments.ts';
import { tenantOf } from './auth.ts';
import { ok } from './reply.ts';
import { httpRoute, routePorts } from './route.ts';

const ROUTES = { start: 'experiments/start', pause: 'experiments/pause', stop: 'experiments/stop' } as const;

/** `POST /experiments/:id/<action>`: one lifecycle transition. */
export const experimentStatusRoute = (action: ExperimentAction) =>
  httpRoute(
    ROUTES[action],
    experimentsRoutes,
    routePorts({ experiments: experimentsRepository, agents: agentsRepository }),
    async ({ params, principal }, ports) => ok(await changeExperimentStatus(tenantOf(principal), params.id, action, ports)),
  );
