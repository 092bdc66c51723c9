import { updateAgent } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { agentDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/update', async ({ params, body, principal }, ports) =>
  ok(await updateAgent(tenantOf(principal), params.agentId, body, agentDeps(ports))),
);
