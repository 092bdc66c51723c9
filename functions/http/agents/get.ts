import { getAgent } from '#shared/domain/agents/agents.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/wiring/agents.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('agents/get', agentsRoutes, routePorts(AGENT_REPOSITORIES), async ({ params, principal, query }, ports) =>
  ok(await getAgent(tenantOf(principal), params.agentId, ports, query)),
);
