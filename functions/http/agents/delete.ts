import { deleteAgent } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { agentDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/delete', async ({ params, principal }, ports) =>
  ok(await deleteAgent(tenantOf(principal), params.agentId, agentDeps(ports))),
);
