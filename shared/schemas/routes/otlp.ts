import { otlpRouteDefs } from '../../catalog.ts';
import { type AreaRouteSchemas, areaRoutes, TELEMETRY_MAX_BODY_BYTES } from '../route-schemas.ts';

export const otlpRoutes = /* @__PURE__ */ areaRoutes(otlpRouteDefs, {
  'otlp/traces': {
    summary: 'OTLP/HTTP trace export (JSON or protobuf, gzip allowed); answers ExportTraceServiceResponse',
    maxBodyBytes: TELEMETRY_MAX_BODY_BYTES,
    rawBody: { contentTypes: ['application/x-protobuf', 'application/json'] },
  },
  'otlp/logs': {
    summary: 'OTLP/HTTP log export (JSON or protobuf, gzip allowed); answers ExportLogsServiceResponse',
    maxBodyBytes: TELEMETRY_MAX_BODY_BYTES,
    rawBody: { contentTypes: ['application/x-protobuf', 'application/json'] },
  },
} as const satisfies AreaRouteSchemas<'otlp'>);
