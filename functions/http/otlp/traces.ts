import { traceSignal } from '#shared/domain/ingest/otlp.ts';
import { otlpExportRoute } from '#shared/http/otlp-route.ts';

export const handler = otlpExportRoute(traceSignal);
