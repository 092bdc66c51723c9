import { listAgents } from '#shared/domain/agents/agents.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/wiring/agents.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute('agents/list', agentsRoutes, routePorts(AGENT_REPOSITORIES), ({ principal, query }, page, ports) =>
  listAgents(tenantOf(principal), query, page, ports),
);
