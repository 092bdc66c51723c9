/** Hand-written OTLP/JSON requests, for the cases an SDK does not produce. */
import { decodeLogsRequest, decodeTraceRequest } from '#shared/domain/otlp/decode.ts';
import { mapLogsRequest } from '#shared/domain/otlp/logs.ts';
import { mapTraceRequest } from '#shared/domain/otlp/traces.ts';
import type { Arrival } from '#shared/domain/spans/model.ts';

export type Json = Record<string, unknown>;

export const TRACE_ID = '5b8efff798038103d269b633813fc60c';
export const SPAN_ID = 'eee19b7ec3c1b174';
export const RECEIVED_AT_MS = 1_767_225_600_000;
export const ARRIVAL: Arrival = { atMs: RECEIVED_AT_MS, requestId: 'request-1' };
/** 2025-01-01T00:00:00.123456789Z */
export const START_NANOS = '1735689600123456789';
export const START_MS = 1_735_689_600_123;

/** Plain values as OTLP AnyValues: integers → intValue, other numbers → doubleValue, objects → kvlist. */
export function anyValue(value: unknown): Json {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString('base64') };
  if (value !== null && typeof value === 'object') return { kvlistValue: { values: keyValues(value as Json) } };
  return {};
}

export const keyValues = (values: Json): Json[] => Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));

export function span(attributes: Json = {}, fields: Json = {}): Json {
  return {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    name: 'operation',
    startTimeUnixNano: START_NANOS,
    endTimeUnixNano: '1735689601123456789',
    attributes: keyValues(attributes),
    ...fields,
  };
}

export function traceRequest(spans: Json[], resource: Json = { 'service.name': 'travel-service' }): Json {
  return { resourceSpans: [{ resource: { attributes: keyValues(resource) }, scopeSpans: [{ scope: { name: 'tests' }, spans }] }] };
}

export function logsRequest(logRecords: Json[], resource: Json = { 'service.name': 'travel-service' }): Json {
  return { resourceLogs: [{ resource: { attributes: keyValues(resource) }, scopeLogs: [{ scope: { name: 'tests' }, logRecords }] }] };
}

export const jsonBody = (request: unknown): Buffer => Buffer.from(JSON.stringify(request));

export const mapTraceJson = (request: Json) => mapTraceRequest(decodeTraceRequest(jsonBody(request), 'json'), ARRIVAL);

export const mapLogsJson = (request: Json) => mapLogsRequest(decodeLogsRequest(jsonBody(request), 'json'), ARRIVAL);

/** The one span a single-span request maps to. */
export function mapOneSpan(attributes: Json = {}, fields: Json = {}, resource?: Json) {
  const { spans, rejected } = mapTraceJson(traceRequest([span(attributes, fields)], resource));
  if (spans.length !== 1) throw new Error(`expected one span, got ${spans.length}: ${rejected.messages.join('; ')}`);
  return spans[0]!;
}
