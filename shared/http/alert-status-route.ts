import { changeAlertStatus } from '../domain/alerts/service.ts';
import type { AlertAction } from '../domain/alerts/lifecycle.ts';
import { tenantOf } from './auth.ts';
import { alertDeps } from './deps.ts';
import { ok } from './reply.ts';
import { httpRoute } from './route.ts';

const ROUTES = { acknowledge: 'alerts/acknowledge', reopen: 'alerts/reopen', resolve: 'alerts/resolve' } as const;

/** `PUT /spans/alerts/:alertId/<action>`: one lifecycle transition. */
export const alertStatusRoute = (action: AlertAction) =>
  httpRoute(ROUTES[action], async ({ params, principal }, ports) =>
    ok(await changeAlertStatus(tenantOf(principal), params.alertId, action, alertDeps(ports))),
  );
