import { sqsQueue } from '#shared/adapters/queue.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { parseLogs } from '#shared/domain/ingest/native-logs.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { accepted } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { logsRoutes } from '#shared/schemas/routes/logs.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'logs/ingest',
  logsRoutes,
  routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue }),
  async ({ body, principal }, ports) => {
    const { items, errors } = parseLogs(body.logs);
    return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: [], logs: items }, errors, ports));
  },
);
