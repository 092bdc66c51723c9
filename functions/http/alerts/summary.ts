import { alertSummary } from '#shared/domain/alerts/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { alertsRoutes } from '#shared/schemas/routes/alerts.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'alerts/summary',
  alertsRoutes,
  routePorts({ alerts: alertsRepository, agents: agentsRepository }),
  async ({ query, principal }, ports) => ok(await alertSummary(tenantOf(principal), query, ports)),
);
