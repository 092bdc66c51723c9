import { acceptOtlpExport, type OtlpSignal, otlpFormatOf } from '../domain/ingest/otlp.ts';
import type { QueuePort } from '../domain/ports.ts';
import { otlpRoutes } from '../schemas/routes/otlp.ts';
import { tenantOf } from './auth.ts';
import { bodyBytes } from './body.ts';
import { encoded } from './reply.ts';
import { httpRoute, type RoutePorts } from './route.ts';

/** The OTLP/HTTP export endpoint of one signal kind (`/v1/traces`, `/v1/logs`). */
export type OtlpExportPorts = RoutePorts<'tenants' | 'agents', { queue: QueuePort }>;

export function otlpExportRoute(signal: OtlpSignal, getPorts: () => OtlpExportPorts) {
  const routeId = signal.kind === 'traces' ? 'otlp/traces' : 'otlp/logs';
  return httpRoute(routeId, otlpRoutes, getPorts, async ({ event, principal }, ports) => {
    const format = otlpFormatOf(event.headers['content-type']);
    const body = bodyBytes(event, otlpRoutes[routeId].maxBodyBytes);
    const response = await acceptOtlpExport(signal, tenantOf(principal), body, format, ports);
    return encoded(200, response.body, response.contentType);
  });
}
