import { ValidationError } from '../errors.ts';
import {
  decodeLogsRequest,
  decodeTraceRequest,
  type EncodedResponse,
  encodeExportResponse,
  mapLogsRequest,
  mapTraceRequest,
  type OtlpFormat,
  type OtlpSignalKind,
  type RejectionSummary,
} from '../otlp/index.ts';
import type { Arrival } from '../spans/model.ts';
import { type AcceptDeps, acceptTelemetry } from './accept.ts';
import { newArrival } from './arrival.ts';
import type { Telemetry } from './messages.ts';

/** OTLP/HTTP speaks protobuf or JSON, chosen by Content-Type. */
export function otlpFormatOf(contentType: string | undefined): OtlpFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new ValidationError('Content-Type must be application/x-protobuf or application/json');
}

/** One OTLP signal kind: its export endpoint's name and how its exports become telemetry. */
export interface OtlpSignal {
  readonly kind: OtlpSignalKind;
  /** Decodes an export body and maps it; `rejected` summarises the items refused. */
  readonly read: (body: Buffer, format: OtlpFormat, arrival: Arrival) => { telemetry: Telemetry; rejected: RejectionSummary };
}

/** `/v1/traces`: spans, and the signals their attributes carry. Each kind is its own value, so a function bundles its own kind's mapping only. */
export const traceSignal: OtlpSignal = {
  kind: 'traces',
  read(body, format, arrival) {
    const { spans, signals, rejected } = mapTraceRequest(decodeTraceRequest(body, format), arrival);
    return { telemetry: { spans, signals, logs: [] }, rejected };
  },
};

/** `/v1/logs`: log records. */
export const logSignal: OtlpSignal = {
  kind: 'logs',
  read(body, format, arrival) {
    const { logs, rejected } = mapLogsRequest(decodeLogsRequest(body, format), arrival);
    return { telemetry: { spans: [], signals: [], logs }, rejected };
  },
};

/**
 * One OTLP export: decode, map, accept what is valid and answer the export response in the request's
 * encoding, with `partialSuccess` naming what was refused.
 */
export async function acceptOtlpExport(
  signal: OtlpSignal,
  tenantId: string,
  body: Buffer | undefined,
  format: OtlpFormat,
  deps: AcceptDeps,
): Promise<EncodedResponse> {
  const { telemetry, rejected } = body
    ? signal.read(body, format, newArrival(deps.clock.now().getTime()))
    : { telemetry: { spans: [], signals: [], logs: [] }, rejected: { count: 0, messages: [] } };
  if (telemetry.spans.length + telemetry.signals.length + telemetry.logs.length > 0) {
    await acceptTelemetry(tenantId, telemetry, [], deps);
  }
  const partial = rejected.count > 0 ? { rejected: rejected.count, errorMessage: rejected.messages.join('; ') } : undefined;
  return encodeExportResponse(signal.kind, partial, format);
}
