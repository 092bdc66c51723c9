import { createExperiment } from '#shared/domain/experiments/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { created } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { experimentsRoutes } from '#shared/schemas/routes/experiments.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'experiments/create',
  experimentsRoutes,
  routePorts({ experiments: experimentsRepository, agents: agentsRepository }),
  async ({ body, principal }, ports) => created(await createExperiment(tenantOf(principal), body, ports)),
);
