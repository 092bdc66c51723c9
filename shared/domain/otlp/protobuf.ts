/**
 * OTLP/protobuf, read and written straight from the wire: the fields of opentelemetry-proto (v1.x)
 * the service reads, decoded into the object shape OTLP/JSON has (lowerCamelCase names, int64 and
 * fixed64 as decimal strings, bytes as Buffers, enums as numbers), so that both encodings go through
 * one reader (decode.ts). Field numbers follow the upstream files common/v1, resource/v1, trace/v1,
 * logs/v1 and collector/{trace,logs}/v1. Every other field (links, flags, trace state, dropped counts,
 * schema URLs, entity refs) is skipped as an unknown field, as is a field of an unexpected wire type.
 */
import { ByteReader, ByteWriter } from '../binary.ts';

type Scalar = 'string' | 'bytes' | 'int64' | 'fixed64' | 'double' | 'bool' | 'enum';
interface Field {
  readonly name: string;
  /** A scalar, or the shape of a nested message (a function: the shapes refer to each other). */
  readonly type: Scalar | (() => Shape);
  readonly repeated?: boolean;
}
type Shape = Readonly<Record<number, Field>>;

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const WIRE_TYPES: Record<Scalar, number> = { string: LENGTH_DELIMITED, bytes: LENGTH_DELIMITED, int64: VARINT, fixed64: FIXED64, double: FIXED64, bool: VARINT, enum: VARINT };

const field = (name: string, type: Field['type']): Field => ({ name, type });
const list = (name: string, type: () => Shape): Field => ({ name, type, repeated: true });

const anyValue: Shape = {
  1: field('stringValue', 'string'),
  2: field('boolValue', 'bool'),
  3: field('intValue', 'int64'),
  4: field('doubleValue', 'double'),
  5: field('arrayValue', () => arrayValue),
  6: field('kvlistValue', () => keyValueList),
  7: field('bytesValue', 'bytes'),
};
const keyValue: Shape = { 1: field('key', 'string'), 2: field('value', () => anyValue) };
const arrayValue: Shape = { 1: list('values', () => anyValue) };
const keyValueList: Shape = { 1: list('values', () => keyValue) };
const attributes = list('attributes', () => keyValue);

const resource: Shape = { 1: attributes };
const scope: Shape = { 1: field('name', 'string'), 2: field('version', 'string') };

const event: Shape = { 1: field('timeUnixNano', 'fixed64'), 2: field('name', 'string'), 3: attributes };
const status: Shape = { 2: field('message', 'string'), 3: field('code', 'enum') };
const span: Shape = {
  1: field('traceId', 'bytes'),
  2: field('spanId', 'bytes'),
  4: field('parentSpanId', 'bytes'),
  5: field('name', 'string'),
  7: field('startTimeUnixNano', 'fixed64'),
  8: field('endTimeUnixNano', 'fixed64'),
  9: attributes,
  11: list('events', () => event),
  15: field('status', () => status),
};
const scopeSpans: Shape = { 1: field('scope', () => scope), 2: list('spans', () => span) };
const resourceSpans: Shape = { 1: field('resource', () => resource), 2: list('scopeSpans', () => scopeSpans) };

const logRecord: Shape = {
  1: field('timeUnixNano', 'fixed64'),
  2: field('severityNumber', 'enum'),
  3: field('severityText', 'string'),
  5: field('body', () => anyValue),
  6: attributes,
  9: field('traceId', 'bytes'),
  10: field('spanId', 'bytes'),
  11: field('observedTimeUnixNano', 'fixed64'),
  12: field('eventName', 'string'),
};
const scopeLogs: Shape = { 1: field('scope', () => scope), 2: list('logRecords', () => logRecord) };
const resourceLogs: Shape = { 1: field('resource', () => resource), 2: list('scopeLogs', () => scopeLogs) };

/** The collector services' requests, by name (for error messages). */
export const REQUESTS = {
  ExportTraceServiceRequest: { 1: list('resourceSpans', () => resourceSpans) },
  ExportLogsServiceRequest: { 1: list('resourceLogs', () => resourceLogs) },
} satisfies Record<string, Shape>;
export type RequestName = keyof typeof REQUESTS;

/**
 * Deeper nesting is refused before it can exhaust the stack. The readers refuse AnyValues nested
 * more than 32 levels anyway; each level is two or three messages below the span or log record.
 */
const MAX_MESSAGE_DEPTH = 128;

/** The request as OTLP/JSON would have it; throws a RangeError on bytes that are not such a message. */
export function decodeRequest(name: RequestName, body: Uint8Array): Record<string, unknown> {
  const reader = new ByteReader(body);
  return decodeMessage(reader, reader.len, REQUESTS[name], 0);
}

/** The message between the reader's position and `end`: one reader serves the whole request. */
function decodeMessage(reader: ByteReader, end: number, shape: Shape, depth: number): Record<string, unknown> {
  if (depth > MAX_MESSAGE_DEPTH) throw new RangeError(`messages nested more than ${MAX_MESSAGE_DEPTH} deep`);
  const message: Record<string, unknown> = {};
  while (reader.pos < end) {
    const tag = reader.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new RangeError('field number 0');
    const known = shape[number];
    const expected = known && (typeof known.type === 'function' ? LENGTH_DELIMITED : WIRE_TYPES[known.type]);
    if (!known || wireType !== expected) {
      reader.skip(wireType);
    } else {
      const value = typeof known.type === 'function' ? decodeMessage(reader, reader.lengthPrefixedEnd(), known.type(), depth + 1) : readScalar(reader, known.type);
      if (known.repeated) ((message[known.name] ??= []) as unknown[]).push(value);
      else message[known.name] = value;
    }
    if (reader.pos > end) throw new RangeError('a field runs past the end of its message');
  }
  return message;
}

function readScalar(reader: ByteReader, type: Scalar): unknown {
  switch (type) {
    case 'string':
      return reader.string();
    case 'bytes':
      return Buffer.from(reader.bytes());
    case 'int64':
      return BigInt.asIntN(64, reader.uint64()).toString();
    case 'fixed64':
      return reader.fixed64().toString();
    case 'double':
      return reader.double();
    case 'bool':
      return reader.int32() !== 0;
    case 'enum':
      return reader.int32();
  }
}

/** OTLP's enums by name, for encoders that write names in OTLP/JSON. */
export interface OtlpEnum {
  readonly name: string;
  readonly values: Readonly<Record<string, number>>;
}

export const STATUS_CODE: OtlpEnum = { name: 'StatusCode', values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } };

// SEVERITY_NUMBER_TRACE = 1, TRACE2 = 2 … FATAL4 = 24: four numbers per level.
export const SEVERITY_NUMBER: OtlpEnum = {
  name: 'SeverityNumber',
  values: Object.fromEntries([
    ['SEVERITY_NUMBER_UNSPECIFIED', 0],
    ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((level, i) =>
      [1, 2, 3, 4].map((n) => [`SEVERITY_NUMBER_${level}${n === 1 ? '' : n}`, i * 4 + n]),
    ),
  ]),
};

/**
 * ExportTraceServiceResponse / ExportLogsServiceResponse: `partial_success` (field 1) holding the
 * rejected count (field 1, int64; below 2^32, as a request holds fewer items) and the error message
 * (field 2); empty without it.
 */
export function encodeResponse(partialSuccess: { rejected: number; errorMessage: string } | undefined): Uint8Array {
  if (!partialSuccess) return new Uint8Array(0);
  const inner = new ByteWriter()
    .uint32((1 << 3) | VARINT)
    .uint32(partialSuccess.rejected)
    .uint32((2 << 3) | LENGTH_DELIMITED)
    .string(partialSuccess.errorMessage)
    .finish();
  return new ByteWriter().uint32((1 << 3) | LENGTH_DELIMITED).bytes(inner).finish();
}
