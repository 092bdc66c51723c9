import { listAlerts } from '#shared/domain/alerts/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { alertsRoutes } from '#shared/schemas/routes/alerts.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute(
  'alerts/list',
  alertsRoutes,
  routePorts({ alerts: alertsRepository, agents: agentsRepository }),
  ({ query, principal }, page, ports) => listAlerts(tenantOf(principal), query, page, ports),
);
