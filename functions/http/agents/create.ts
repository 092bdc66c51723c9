import { createAgent } from '#shared/domain/agents/agents.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { created } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { AGENT_REPOSITORIES } from '#shared/wiring/agents.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('agents/create', agentsRoutes, routePorts(AGENT_REPOSITORIES), async ({ body, principal }, ports) =>
  created(await createAgent(tenantOf(principal), body, ports)),
);
