import { sqsQueue } from '#shared/adapters/queue.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { parseSpans } from '#shared/domain/ingest/native-spans.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { accepted } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { spansRoutes } from '#shared/schemas/routes/spans.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'spans/ingest',
  spansRoutes,
  routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue }),
  async ({ body, principal }, ports) => {
    const { items, errors } = parseSpans(body.spans);
    return accepted(await acceptTelemetry(tenantOf(principal), { spans: items, signals: [], logs: [] }, errors, ports));
  },
);
