/** OTLP/HTTP ingestion: decode a request, map it to canonical spans, signals and logs, encode the answer. */
export { decodeLogsRequest, decodeTraceRequest } from './decode.ts';
export type { OtlpFormat, OtlpLogRecord, OtlpLogsRequest, OtlpSpan, OtlpTraceRequest } from './decode.ts';
export { mapTraceRequest, type MappedTraces } from './traces.ts';
export { mapLogsRequest, type MappedLogs } from './logs.ts';
export type { RejectionSummary } from './common.ts';
export { encodeExportResponse, type EncodedResponse, type OtlpSignalKind, type PartialSuccess } from './response.ts';
