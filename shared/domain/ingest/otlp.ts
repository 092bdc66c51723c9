import { ValidationError } from '../errors.ts';
import {
  decodeLogsRequest,
  decodeTraceRequest,
  encodeExportResponse,
  mapLogsRequest,
  mapTraceRequest,
  type EncodedResponse,
  type OtlpFormat,
  type OtlpSignalKind,
  type RejectionSummary,
} from '../otlp/index.ts';
import { acceptTelemetry, type AcceptDeps } from './accept.ts';
import type { Telemetry } from './messages.ts';

/** OTLP/HTTP speaks protobuf or JSON, chosen by Content-Type. */
export function otlpFormatOf(contentType: string | undefined): OtlpFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new ValidationError('Content-Type must be application/x-protobuf or application/json');
}

function decodeAndMap(kind: OtlpSignalKind, body: Buffer, format: OtlpFormat, receivedAtMs: number): { telemetry: Telemetry; rejected: RejectionSummary } {
  if (kind === 'traces') {
    const { spans, signals, rejected } = mapTraceRequest(decodeTraceRequest(body, format), receivedAtMs);
    return { telemetry: { spans, signals, logs: [] }, rejected };
  }
  const { logs, rejected } = mapLogsRequest(decodeLogsRequest(body, format), receivedAtMs);
  return { telemetry: { spans: [], signals: [], logs }, rejected };
}

/**
 * One OTLP export: decode, map, accept what is valid and answer the export response in the request's
 * encoding, with `partialSuccess` naming what was refused.
 */
export async function acceptOtlpExport(
  kind: OtlpSignalKind,
  tenantId: string,
  body: Buffer | undefined,
  format: OtlpFormat,
  deps: AcceptDeps,
): Promise<EncodedResponse> {
  const receivedAtMs = deps.clock.now().getTime();
  const { telemetry, rejected } = body ? decodeAndMap(kind, body, format, receivedAtMs) : { telemetry: { spans: [], signals: [], logs: [] }, rejected: { count: 0, messages: [] } };
  if (telemetry.spans.length + telemetry.signals.length + telemetry.logs.length > 0) {
    await acceptTelemetry(tenantId, telemetry, [], deps);
  }
  const partial = rejected.count > 0 ? { rejected: rejected.count, errorMessage: rejected.messages.join('; ') } : undefined;
  return encodeExportResponse(kind, partial, format);
}
