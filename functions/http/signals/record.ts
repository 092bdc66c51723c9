import { sqsQueue } from '#shared/adapters/queue.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { newArrival } from '#shared/domain/ingest/arrival.ts';
import { signalFromNative } from '#shared/domain/ingest/native-signals.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { accepted } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { signalsRoutes } from '#shared/schemas/routes/signals.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'signals/record',
  signalsRoutes,
  routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue }),
  async ({ body, principal }, ports) => {
    const signal = signalFromNative(newArrival(ports.clock.now().getTime()))(body, 0);
    return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: [signal], logs: [] }, [], ports));
  },
);
