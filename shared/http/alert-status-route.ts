import type { AlertAction } from '../domain/alerts/lifecycle.ts';
import { changeAlertStatus } from '../domain/alerts/service.ts';
import { alertsRoutes } from '../schemas/routes/alerts.ts';
import { tenantOf } from './auth.ts';
import { ok } from './reply.ts';
import { httpRoute, type RoutePorts } from './route.ts';

const ROUTES = { acknowledge: 'alerts/acknowledge', reopen: 'alerts/reopen', resolve: 'alerts/resolve' } as const;

/** `PUT /spans/alerts/:alertId/<action>`: one lifecycle transition. */
export const alertStatusRoute = (action: AlertAction, getPorts: () => RoutePorts<'alerts' | 'agents'>) =>
  httpRoute(ROUTES[action], alertsRoutes, getPorts, async ({ params, principal }, ports) =>
    ok(await changeAlertStatus(tenantOf(principal), params.alertId, action, ports)),
  );
