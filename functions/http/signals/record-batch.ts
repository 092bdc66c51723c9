import { sqsQueue } from '#shared/adapters/queue.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { newArrival } from '#shared/domain/ingest/arrival.ts';
import { parseSignals } from '#shared/domain/ingest/native-signals.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { accepted } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { signalsRoutes } from '#shared/schemas/routes/signals.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'signals/record-batch',
  signalsRoutes,
  routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue }),
  async ({ body, principal }, ports) => {
    const { items, errors } = parseSignals(body.signals, newArrival(ports.clock.now().getTime()));
    return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: items, logs: [] }, errors, ports));
  },
);
