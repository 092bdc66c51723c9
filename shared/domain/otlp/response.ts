/** ExportTraceServiceResponse / ExportLogsServiceResponse in the encoding of the request. */
import type { OtlpFormat } from './decode.ts';
import { encodeResponse } from './protobuf.ts';

export type OtlpSignalKind = 'traces' | 'logs';

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

export interface EncodedResponse {
  body: Buffer | string;
  contentType: string;
}

const REJECTED_FIELD = { traces: 'rejectedSpans', logs: 'rejectedLogRecords' };

/**
 * The export response: empty when everything was accepted, else `partialSuccess` with the number of
 * refused items (an int64, hence a string in OTLP/JSON) and why. A message with nothing rejected is
 * still sent, as OTLP allows warnings.
 */
export function encodeExportResponse(kind: OtlpSignalKind, partialSuccess: PartialSuccess | undefined, format: OtlpFormat): EncodedResponse {
  const reported = partialSuccess !== undefined && (partialSuccess.rejected > 0 || partialSuccess.errorMessage !== '') ? partialSuccess : undefined;
  if (format === 'json') {
    const response = reported ? { partialSuccess: { [REJECTED_FIELD[kind]]: String(reported.rejected), errorMessage: reported.errorMessage } } : {};
    return { body: JSON.stringify(response), contentType: 'application/json' };
  }
  const bytes = encodeResponse(kind, reported);
  return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType: 'application/x-protobuf' };
}
