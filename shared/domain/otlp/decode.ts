/**
 * OTLP/HTTP request bodies (JSON or protobuf) → one normalized form: ids as lower-case hex ('' when
 * absent), times as decimal nanosecond strings ('0' when absent), enums as numbers and attributes as
 * plain JSON values. Both encodings go through the same reader: protobuf is decoded by the generated
 * codec (protobuf.ts) into messages of the OTLP/JSON shape but for their 64-bit integers (`Long`s).
 */
import protobuf from 'protobufjs/minimal.js';
import { ValidationError } from '../errors.ts';
import type { AttributeValue } from '../spans/model.ts';
import { parseWellFormedJson, textPrefix } from '../well-formed.ts';
import type { Attributes } from './attributes.ts';
import { decodeRequest, type OtlpEnum, type RequestName, SEVERITY_NUMBER, STATUS_CODE } from './protobuf.ts';

export type OtlpFormat = 'json' | 'protobuf';

export interface OtlpScope {
  name: string;
  version: string;
}

export interface OtlpSpanEvent {
  name: string;
  timeUnixNano: string;
  attributes: Attributes;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  events: OtlpSpanEvent[];
  status: { code: number; message: string };
}

export interface OtlpTraceRequest {
  resourceSpans: {
    resource: { attributes: Attributes };
    scopeSpans: { scope: OtlpScope; spans: OtlpSpan[] }[];
  }[];
}

export interface OtlpLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  /** null when the record has no body. */
  body: AttributeValue;
  eventName: string;
  attributes: Attributes;
  traceId: string;
  spanId: string;
}

export interface OtlpLogsRequest {
  resourceLogs: {
    resource: { attributes: Attributes };
    scopeLogs: { scope: OtlpScope; logRecords: OtlpLogRecord[] }[];
  }[];
}

export function decodeTraceRequest(body: Buffer, format: OtlpFormat): OtlpTraceRequest {
  const root = OtlpObject.root(format === 'json' ? parseJson(body) : parseProtobuf('ExportTraceServiceRequest', body));
  return {
    resourceSpans: root.list('resourceSpans', (resourceSpans) => ({
      resource: readResource(resourceSpans.object('resource')),
      scopeSpans: resourceSpans.list('scopeSpans', (scopeSpans) => ({
        scope: readScope(scopeSpans.object('scope')),
        spans: scopeSpans.list('spans', readSpan),
      })),
    })),
  };
}

export function decodeLogsRequest(body: Buffer, format: OtlpFormat): OtlpLogsRequest {
  const root = OtlpObject.root(format === 'json' ? parseJson(body) : parseProtobuf('ExportLogsServiceRequest', body));
  return {
    resourceLogs: root.list('resourceLogs', (resourceLogs) => ({
      resource: readResource(resourceLogs.object('resource')),
      scopeLogs: resourceLogs.list('scopeLogs', (scopeLogs) => ({
        scope: readScope(scopeLogs.object('scope')),
        logRecords: scopeLogs.list('logRecords', readLogRecord),
      })),
    })),
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return parseWellFormedJson(body.toString('utf8'));
  } catch (err) {
    const detail = err instanceof SyntaxError ? `: ${textPrefix(err.message, 120)}` : '';
    throw new ValidationError(`Malformed OTLP JSON body${detail}`);
  }
}

function parseProtobuf(name: RequestName, body: Buffer): unknown {
  try {
    return decodeRequest(name, body);
  } catch (err) {
    const detail = err instanceof Error ? ` (${textPrefix(err.message, 80)})` : '';
    throw new ValidationError(`Malformed OTLP protobuf body: not a valid ${name}${detail}`);
  }
}

const readResource = (resource: OtlpObject) => ({ attributes: resource.attributes('attributes') });

const readScope = (scope: OtlpObject): OtlpScope => ({ name: scope.string('name'), version: scope.string('version') });

function readSpan(span: OtlpObject): OtlpSpan {
  const status = span.object('status');
  return {
    traceId: span.id('traceId'),
    spanId: span.id('spanId'),
    parentSpanId: span.id('parentSpanId'),
    name: span.string('name'),
    startTimeUnixNano: span.int64('startTimeUnixNano'),
    endTimeUnixNano: span.int64('endTimeUnixNano'),
    attributes: span.attributes('attributes'),
    events: span.list('events', (event) => ({
      name: event.string('name'),
      timeUnixNano: event.int64('timeUnixNano'),
      attributes: event.attributes('attributes'),
    })),
    status: { code: status.enumNumber('code', STATUS_CODE), message: status.string('message') },
  };
}

function readLogRecord(record: OtlpObject): OtlpLogRecord {
  return {
    timeUnixNano: record.int64('timeUnixNano'),
    observedTimeUnixNano: record.int64('observedTimeUnixNano'),
    severityNumber: record.enumNumber('severityNumber', SEVERITY_NUMBER),
    severityText: record.string('severityText'),
    body: record.object('body').anyValue(),
    eventName: record.string('eventName'),
    attributes: record.attributes('attributes'),
    traceId: record.id('traceId'),
    spanId: record.id('spanId'),
  };
}

/** int64 and fixed64 together: a time beyond them is no time (and would be no JavaScript date either). */
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * AnyValue nesting read at most: what is deeper is not read (a hostile payload could otherwise take the
 * stack), and stands as a marker, so the rest of the export is kept (the ingestion keeps what is
 * deeper than 16 levels as JSON text anyway).
 */
const MAX_VALUE_DEPTH = 32;
export const TOO_DEEP_MARKER = `…[nested more than ${MAX_VALUE_DEPTH} levels: left out]`;

/**
 * One message object of the request with its path, for error messages such as
 * "resourceSpans[0].scopeSpans[1].spans[2].startTimeUnixNano must be an integer…".
 * Proto3 JSON allows null for any field, meaning its default value.
 */
class OtlpObject {
  private constructor(
    private readonly fields: Record<string, unknown>,
    private readonly path: string,
    private readonly depth = 0,
  ) {}

  static root(value: unknown): OtlpObject {
    if (!isPlainObject(value)) throw new ValidationError('The OTLP request body must be an object');
    return new OtlpObject(value, '');
  }

  object(key: string): OtlpObject {
    const value = this.fields[key] ?? {};
    if (!isPlainObject(value)) throw this.invalid(key, 'an object');
    return new OtlpObject(value, this.pathOf(key), this.depth);
  }

  list<T>(key: string, readItem: (item: OtlpObject) => T): T[] {
    const value = this.fields[key] ?? [];
    if (!Array.isArray(value)) throw this.invalid(key, 'an array');
    return value.map((item: unknown, i) => {
      const path = `${this.pathOf(key)}[${i}]`;
      if (!isPlainObject(item)) throw new ValidationError(`${path} must be an object`);
      return readItem(new OtlpObject(item, path, this.depth));
    });
  }

  string(key: string): string {
    const value = this.fields[key] ?? '';
    if (typeof value !== 'string') throw this.invalid(key, 'a string');
    return value;
  }

  /** int64/fixed64 as a canonical decimal string; OTLP/JSON sends numbers or decimal strings, protobuf `Long`s. */
  int64(key: string): string {
    const field = this.fields[key] ?? 0;
    const value = isLong(field) ? field.toString() : field;
    const isInteger = (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d{1,20}$/.test(value));
    const integer = isInteger ? BigInt(value as number | string) : undefined;
    if (integer === undefined || integer < INT64_MIN || integer > UINT64_MAX) {
      throw this.invalid(key, 'an integer (a number or a decimal string) in the 64-bit range');
    }
    return integer.toString();
  }

  /** Enums arrive as numbers (OTLP/JSON) or, from protobuf-JSON encoders, as their names. */
  enumNumber(key: string, type: OtlpEnum): number {
    const value = this.fields[key] ?? 0;
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    const byName = typeof value === 'string' ? type.values[value] : undefined;
    if (byName === undefined) throw this.invalid(key, `a ${type.name} number`);
    return byName;
  }

  /** Trace and span ids: hex strings in OTLP/JSON, bytes in protobuf. */
  id(key: string): string {
    const value = this.fields[key] ?? '';
    if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
    if (typeof value !== 'string') throw this.invalid(key, 'a hex string');
    return value.toLowerCase();
  }

  attributes(key: string): Attributes {
    const entries = this.list(key, (keyValue) => [keyValue.string('key'), keyValue.object('value').anyValue()] as const);
    // fromEntries defines own properties, so a key such as "__proto__" stays an ordinary attribute.
    return Object.fromEntries(entries.filter(([name]) => name !== ''));
  }

  /** This object read as an AnyValue, converted to a plain JSON value (bytes as base64). */
  anyValue(): AttributeValue {
    if (this.depth > MAX_VALUE_DEPTH) return TOO_DEEP_MARKER;
    const has = (key: string) => this.fields[key] !== undefined && this.fields[key] !== null;
    if (has('stringValue')) return this.string('stringValue');
    if (has('boolValue')) return this.bool('boolValue');
    if (has('intValue')) return Number(this.int64('intValue'));
    if (has('doubleValue')) return this.double('doubleValue');
    if (has('arrayValue')) return this.nested('arrayValue').list('values', (item) => item.anyValue());
    if (has('kvlistValue')) return this.nested('kvlistValue').attributes('values');
    if (has('bytesValue')) return this.bytes('bytesValue');
    return null;
  }

  private nested(key: string): OtlpObject {
    const child = this.object(key);
    return new OtlpObject(child.fields, child.path, this.depth + 1);
  }

  private bool(key: string): boolean {
    const value = this.fields[key];
    if (typeof value !== 'boolean') throw this.invalid(key, 'a boolean');
    return value;
  }

  /** Non-finite doubles keep their names (NaN, Infinity), as JSON has no such numbers. */
  private double(key: string): number | string {
    const value = this.fields[key];
    const number = typeof value === 'string' ? parseDoubleText(value) : value;
    if (typeof number !== 'number') throw this.invalid(key, 'a number');
    return Number.isFinite(number) ? number : String(number);
  }

  private bytes(key: string): string {
    const value = this.fields[key];
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    if (typeof value !== 'string') throw this.invalid(key, 'a base64 string');
    return value;
  }

  private pathOf(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  private invalid(key: string, expected: string): ValidationError {
    return new ValidationError(`${this.pathOf(key)} must be ${expected}`);
  }
}

/** A 64-bit integer of a decoded protobuf message. */
const isLong = (value: unknown): value is { toString(): string } => value instanceof protobuf.util.Long;

/** A JSON object or a decoded protobuf message: not a list, bytes or a 64-bit integer. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !isLong(value);
}

/** Proto3 JSON also writes doubles as strings: a numeral, "NaN", "Infinity" or "-Infinity". */
function parseDoubleText(text: string): number | null {
  const number = Number(text);
  return text.trim() !== '' && (!Number.isNaN(number) || text === 'NaN') ? number : null;
}
