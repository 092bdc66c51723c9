import { sqsQueue } from '../adapters/queue.ts';
import { acceptOtlpExport, type OtlpSignal, otlpFormatOf } from '../domain/ingest/otlp.ts';
import { otlpRoutes } from '../schemas/routes/otlp.ts';
import { agentsRepository } from '../store/agents.ts';
import { tenantsRepository } from '../store/tenants.ts';
import { tenantOf } from './auth.ts';
import { bodyBytes } from './body.ts';
import { encoded } from './reply.ts';
import { httpRoute, routePorts } from './route.ts';

/** The OTLP/HTTP export endpoint of one signal kind (`/v1/traces`, `/v1/logs`). */
export function otlpExportRoute(signal: OtlpSignal) {
  const routeId = signal.kind === 'traces' ? 'otlp/traces' : 'otlp/logs';
  return httpRoute(
    routeId,
    otlpRoutes,
    routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue }),
    async ({ event, principal }, ports) => {
      const format = otlpFormatOf(event.headers['content-type']);
      const body = bodyBytes(event, otlpRoutes[routeId].maxBodyBytes);
      const response = await acceptOtlpExport(signal, tenantOf(principal), body, format, ports);
      return encoded(200, response.body, response.contentType);
    },
  );
}
