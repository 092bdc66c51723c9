import { sqsQueue } from '#shared/adapters/queue.ts';
import { deleteAgent } from '#shared/domain/agents/agents.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { logger, thrown } from '#shared/observability/logger.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'agents/delete',
  agentsRoutes,
  routePorts({ agents: agentsRepository, experiments: experimentsRepository }, { queue: sqsQueue }),
  async ({ params, principal }, ports) =>
    ok(await deleteAgent(tenantOf(principal), params.agentId, { ...ports, reportError: (text, err) => logger.warn(text, thrown(err)) })),
);
