import { getAgent } from '#shared/domain/agents/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/http/agent-deps.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';

export const handler = httpRoute('agents/get', agentsRoutes, routePorts(AGENT_REPOSITORIES), async ({ params, principal }, ports) =>
  ok(await getAgent(tenantOf(principal), params.agentId, ports)),
);
