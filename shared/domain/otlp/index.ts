/** OTLP/HTTP ingestion: decode a request, map it to canonical spans, signals and logs, encode the answer. */

export type { RejectionSummary } from './common.ts';
export type { OtlpFormat, OtlpLogRecord, OtlpLogsRequest, OtlpSpan, OtlpTraceRequest } from './decode.ts';
export { decodeLogsRequest, decodeTraceRequest } from './decode.ts';
export { type MappedLogs, mapLogsRequest } from './logs.ts';
export { type EncodedResponse, encodeExportResponse, type OtlpSignalKind, type PartialSuccess } from './response.ts';
export { type MappedTraces, mapTraceRequest } from './traces.ts';
