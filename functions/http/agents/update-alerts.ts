import { updateAlertConfig } from '#shared/domain/alerts/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('agents/update-alerts', agentsRoutes, routePorts({ agents: agentsRepository }), async ({ params, body, principal }, ports) =>
  ok(await updateAlertConfig(tenantOf(principal), params.agentId, body, ports)),
);
