import { sqsQueue } from '#shared/adapters/queue.ts';
import { createExport } from '#shared/domain/lake/exports.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { accepted } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { exportsRoutes } from '#shared/schemas/routes/exports.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { exportsRepository } from '#shared/store/exports.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'exports/create',
  exportsRoutes,
  routePorts({ agents: agentsRepository, exports: exportsRepository }, { queue: sqsQueue }),
  async ({ body, principal }, ports) => accepted(await createExport(tenantOf(principal), body, ports)),
);
