import { listAgents } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { agentDeps } from '../../../shared/http/deps.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/list', async ({ query, principal }, ports) => {
  const { items, total } = await listAgents(tenantOf(principal), query, agentDeps(ports));
  return paged(items, query, total);
});
