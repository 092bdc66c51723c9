import { getAgent } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { AGENT_REPOSITORIES } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/get', routePorts(AGENT_REPOSITORIES), async ({ params, principal }, ports) =>
  ok(await getAgent(tenantOf(principal), params.agentId, ports)),
);
