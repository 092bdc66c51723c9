import { createAgent } from '../../../shared/domain/agents/agents.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { agentDeps } from '../../../shared/http/deps.ts';
import { created } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/create', async ({ body, principal }, ports) =>
  created(await createAgent(tenantOf(principal), body, agentDeps(ports))),
);
