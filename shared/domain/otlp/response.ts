/** ExportTraceServiceResponse / ExportLogsServiceResponse in the encoding of the request. */
import type { OtlpFormat } from './decode.ts';
import { ExportLogsServiceResponse, ExportTraceServiceResponse } from './proto.ts';

export type OtlpSignalKind = 'traces' | 'logs';

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

export interface EncodedResponse {
  body: Buffer | string;
  contentType: string;
}

const RESPONSES = {
  traces: { type: ExportTraceServiceResponse, rejectedField: 'rejectedSpans' },
  logs: { type: ExportLogsServiceResponse, rejectedField: 'rejectedLogRecords' },
};

/**
 * The export response: empty when everything was accepted, else `partialSuccess` with the number of
 * refused items (an int64, hence a string in OTLP/JSON) and why. A message with nothing rejected is
 * still sent, as OTLP allows warnings.
 */
export function encodeExportResponse(
  kind: OtlpSignalKind,
  partialSuccess: PartialSuccess | undefined,
  format: OtlpFormat,
): EncodedResponse {
  const { type, rejectedField } = RESPONSES[kind];
  const reportsSomething = partialSuccess !== undefined && (partialSuccess.rejected > 0 || partialSuccess.errorMessage !== '');
  const response = reportsSomething
    ? { partialSuccess: { [rejectedField]: String(partialSuccess.rejected), errorMessage: partialSuccess.errorMessage } }
    : {};
  if (format === 'json') return { body: JSON.stringify(response), contentType: 'application/json' };
  const bytes = type.encode(type.fromObject(response)).finish();
  return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType: 'application/x-protobuf' };
}
