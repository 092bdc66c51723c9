import type { ExperimentAction } from '../domain/experiments/lifecycle.ts';
import { changeExperimentStatus } from '../domain/experiments/service.ts';
import { experimentsRoutes } from '../schemas/routes/experiments.ts';
import { tenantOf } from './auth.ts';
import { ok } from './reply.ts';
import { httpRoute, type RoutePorts } from './route.ts';

const ROUTES = { start: 'experiments/start', pause: 'experiments/pause', stop: 'experiments/stop' } as const;

/** `POST /experiments/:id/<action>`: one lifecycle transition. */
export const experimentStatusRoute = (action: ExperimentAction, getPorts: () => RoutePorts<'experiments' | 'agents'>) =>
  httpRoute(ROUTES[action], experimentsRoutes, getPorts, async ({ params, principal }, ports) =>
    ok(await changeExperimentStatus(tenantOf(principal), params.id, action, ports)),
  );
