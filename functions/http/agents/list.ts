import { listAgents } from '#shared/domain/agents/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/http/agent-deps.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { routePorts } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';

export const handler = listRoute('agents/list', agentsRoutes, routePorts(AGENT_REPOSITORIES), ({ principal }, page, ports) =>
  listAgents(tenantOf(principal), page, ports),
);
