import { logSignal } from '#shared/domain/ingest/otlp.ts';
import { otlpExportRoute } from '#shared/http/otlp-route.ts';
import { otlpExportPorts } from '#shared/wiring/otlp.ts';

export const handler = otlpExportRoute(logSignal, otlpExportPorts);
