import { updateAgent } from '#shared/domain/agents/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/http/agent-deps.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';

export const handler = httpRoute('agents/update', agentsRoutes, routePorts(AGENT_REPOSITORIES), async ({ params, body, principal }, ports) =>
  ok(await updateAgent(tenantOf(principal), params.agentId, body, ports)),
);
