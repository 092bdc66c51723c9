import type { AlertAction } from '../domain/alerts/lifecycle.ts';
import { changeAlertStatus } from '../domain/alerts/service.ts';
import { alertsRoutes } from '../schemas/routes/alerts.ts';
import { agentsRepository } from '../store/agents.ts';
import { alertsRepository } from '../store/alerts.ts';
import { tenantOf } from './auth.ts';
import { ok } from './reply.ts';
import { httpRoute, routePorts } from './route.ts';

const ROUTES = { acknowledge: 'alerts/acknowledge', reopen: 'alerts/reopen', resolve: 'alerts/resolve' } as const;

/** `PUT /spans/alerts/:alertId/<action>`: one lifecycle transition. */
export const alertStatusRoute = (action: AlertAction) =>
  httpRoute(ROUTES[action], alertsRoutes, routePorts({ alerts: alertsRepository, agents: agentsRepository }), async ({ params, principal }, ports) =>
    ok(await changeAlertStatus(tenantOf(principal), params.alertId, action, ports)),
  );
