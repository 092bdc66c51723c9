import { listAgents } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { AGENT_REPOSITORIES } from '../../../shared/http/agent-deps.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { agentsRoutes } from '../../../shared/schemas/routes/agents.ts';

export const handler = httpRoute('agents/list', agentsRoutes, routePorts(AGENT_REPOSITORIES), async ({ query, principal }, ports) => {
  const { items, total } = await listAgents(tenantOf(principal), query, ports);
  return paged(items, query, total);
});
