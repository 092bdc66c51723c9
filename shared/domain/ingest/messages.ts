import { ValidationError } from '../errors.ts';
import {
  type AttributeValue,
  type CanonicalLog,
  type CanonicalSignal,
  type CanonicalSpan,
  isStorableNumber,
  PROTO_KEY_STAND_IN,
  storableOrNull,
} from '../spans/model.ts';
import { characterCount, textPrefix } from '../well-formed.ts';

/** What the ingest queue carries. Every message is processed idempotently by the ingest worker. */
export type IngestMessage =
  | {
      kind: 'telemetry';
      tenantId: string;
      receivedAtMs: number;
      spans: CanonicalSpan[];
      signals: CanonicalSignal[];
      logs: CanonicalLog[];
    }
  /** `finalSweep`: the last pass, queued with a delay once the data is gone, for writes that were in flight. */
  | { kind: 'purge-agent'; tenantId: string; agentId: string; finalSweep?: true }
  /** Pending traces of a tenant that the closing job found quiet: closed and finished if they still are (`closeTraces`). */
  | { kind: 'close-traces'; tenantId: string; traceIds: string[] }
  /** A large session's figures, recomputed from all of its traces once `dueAtMs` has come (`recordSessions`). */
  | { kind: 'refresh-session'; tenantId: string; sessionId: string; dueAtMs: number };

export type CloseTracesMessage = Extract<IngestMessage, { kind: 'close-traces' }>;

/** The trace ids one close message carries at most (a few KB). */
export const MAX_CLOSE_TRACES = 100;

export interface Telemetry {
  spans: CanonicalSpan[];
  signals: CanonicalSignal[];
  logs: CanonicalLog[];
}

/** SQS takes 256 KiB per message; leave room for the envelope and multi-byte characters. */
export const MAX_MESSAGE_BYTES = 240 * 1024;
export const MAX_TEXT_CHARS = 32 * 1024;
const MAX_ATTRIBUTE_TEXT_CHARS = 4 * 1024;
const MAX_ATTRIBUTES_BYTES = 32 * 1024;
/** An attribute key as long as the native API takes one. */
const MAX_KEY_CHARS = 256;
/** Names, models, tools and the like: as long as the native API takes them. */
const MAX_NAME_CHARS = 256;
const MAX_SPAN_NAME_CHARS = 512;
const MAX_AGENT_NAME_CHARS = 200;
/** DynamoDB nests maps and lists 32 deep; deeper values are kept as their JSON text. */
const MAX_NESTING = 16;
/**
 * A span's input and output, and its events together, each take at most this much of a message as
 * JSON (escaped control characters take six bytes each), so that with its attributes and names any
 * span fits in one message.
 */
const MAX_FIELD_JSON_BYTES = 48 * 1024;
const MAX_EVENTS = 64;
const MAX_TAGS = 50;
const MAX_TAG_CHARS = 256;

/**
 * Cuts text to `max` characters (code points, as the schemas count them, so text they take is never
 * cut) and says so in the text itself, so nothing is dropped silently.
 */
export function truncateText(text: string | null, max = MAX_TEXT_CHARS): string | null {
  if (text === null) return text;
  const kept = textPrefix(text, max);
  return kept.length === text.length ? text : `${kept}…[truncated ${characterCount(text.slice(kept.length))} characters]`;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Cuts text further, if it must, until its JSON takes at most `maxBytes`. */
function fitTextBytes(text: string | null, maxBytes = MAX_FIELD_JSON_BYTES): string | null {
  let fitted = truncateText(text);
  while (fitted !== null && jsonBytes(fitted) > maxBytes) {
    fitted = truncateText(text, Math.floor(((characterCount(fitted) * maxBytes) / jsonBytes(fitted)) * 0.9));
  }
  return fitted;
}

/**
 * A key named `__proto__` (JSON allows it) is kept under another name: assigned to a plain object, as
 * the DynamoDB marshaller does, it would set the prototype instead, and the worker could never store it.
 * A key longer than the native API takes is cut (an OTLP exporter may send any length).
 */
const storableKey = (key: string): string => (key === '__proto__' ? PROTO_KEY_STAND_IN : truncateText(key, MAX_KEY_CHARS)!);

function truncateValue(value: AttributeValue, depth = 0): AttributeValue {
  if (typeof value === 'string') return truncateText(value, MAX_ATTRIBUTE_TEXT_CHARS);
  if (typeof value === 'number') return isStorableNumber(value) ? value : String(value);
  if (value && typeof value === 'object' && depth >= MAX_NESTING) return truncateText(JSON.stringify(value), MAX_ATTRIBUTE_TEXT_CHARS);
  if (Array.isArray(value)) return value.map((v) => truncateValue(v, depth + 1));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableKey(k), truncateValue(v, depth + 1)]));
  return value;
}

const LEFT_OUT_NOTE_KEY = 'aos.truncated';
const MAX_LEFT_OUT_NAMED = 20;

/** The note standing in for attributes left out: how many, and the first of their keys, cut short. */
function leftOutNote(keys: readonly string[]): string {
  const named = keys.slice(0, MAX_LEFT_OUT_NAMED).map((k) => truncateText(k, 64));
  const more = keys.length > MAX_LEFT_OUT_NAMED ? ` and ${keys.length - MAX_LEFT_OUT_NAMED} more` : '';
  return `${keys.length} attributes left out to keep the rest within 32 KB: ${named.join(', ')}${more}`;
}

/** What one entry adds to its object's JSON: the key, a colon, the value and a comma. */
const entryBytes = (key: string, value: AttributeValue) => jsonBytes(key) + jsonBytes(value) + 2;

/**
 * Attributes with every value cut to its limit and, when together they still pass 32 KB as JSON,
 * as many of them as fit in the order sent (one too large is passed over for the smaller ones after
 * it), with a note naming the ones left out.
 */
export function truncateAttributes(attributes: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const cut = truncateValue(attributes) as Record<string, AttributeValue>;
  if (jsonBytes(cut) <= MAX_ATTRIBUTES_BYTES) return cut;
  const entries = Object.entries(cut).map(([key, value]) => ({ key, value, bytes: entryBytes(key, value) }));
  const kept: typeof entries = [];
  let keptBytes = 1;
  for (const entry of entries) {
    if (keptBytes + entry.bytes > MAX_ATTRIBUTES_BYTES) continue;
    kept.push(entry);
    keptBytes += entry.bytes;
  }
  // The note needs room too: the last ones kept make way for it (a note names 20 keys of 64 characters at most, so it always fits).
  for (;;) {
    const keptSet = new Set(kept);
    const note = leftOutNote(entries.filter((entry) => !keptSet.has(entry)).map((entry) => entry.key));
    if (keptBytes + entryBytes(LEFT_OUT_NOTE_KEY, note) <= MAX_ATTRIBUTES_BYTES) {
      return { ...Object.fromEntries(kept.map((entry) => [entry.key, entry.value])), [LEFT_OUT_NOTE_KEY]: note };
    }
    keptBytes -= kept.pop()!.bytes;
  }
}

const cutName = (text: string | null, max = MAX_NAME_CHARS) => truncateText(text, max);

/** An id that groups traces (a session, a user, …); empty or blank text names none, rather than one nobody can open. */
const groupingId = (text: string | null) => (text === null || text.trim() === '' ? null : cutName(text));

/** The span's events in order, as many as fit in their share of a message. */
function fitEvents(events: CanonicalSpan['events']): CanonicalSpan['events'] {
  const kept: CanonicalSpan['events'] = [];
  let bytes = 0;
  for (const event of events.slice(0, MAX_EVENTS)) {
    const fitted = { ...event, name: cutName(event.name)!, attributes: truncateAttributes(event.attributes) };
    bytes += jsonBytes(fitted);
    if (bytes > MAX_FIELD_JSON_BYTES) break;
    kept.push(fitted);
  }
  return kept;
}

/**
 * A span as a queue message carries it: every text cut to its limit, numbers DynamoDB cannot hold
 * dropped, attributes within 32 KB, so that any span fits in one message.
 */
export function fitSpan(span: CanonicalSpan): CanonicalSpan {
  return {
    ...span,
    name: cutName(span.name, MAX_SPAN_NAME_CHARS)!,
    agentName: cutName(span.agentName, MAX_AGENT_NAME_CHARS),
    input: fitTextBytes(span.input),
    output: fitTextBytes(span.output),
    statusMessage: truncateText(span.statusMessage, MAX_ATTRIBUTE_TEXT_CHARS),
    errorType: cutName(span.errorType),
    model: cutName(span.model),
    provider: cutName(span.provider),
    operation: cutName(span.operation),
    toolName: cutName(span.toolName),
    sessionId: groupingId(span.sessionId),
    userId: groupingId(span.userId),
    experimentId: groupingId(span.experimentId),
    variant: groupingId(span.variant),
    inputTokens: storableOrNull(span.inputTokens),
    outputTokens: storableOrNull(span.outputTokens),
    cachedInputTokens: storableOrNull(span.cachedInputTokens),
    reasoningTokens: storableOrNull(span.reasoningTokens),
    cost: storableOrNull(span.cost),
    tags: span.tags.slice(0, MAX_TAGS).map((tag) => truncateText(tag, MAX_TAG_CHARS)!),
    metadata: truncateAttributes(span.metadata),
    attributes: truncateAttributes(span.attributes),
    events: fitEvents(span.events),
  };
}

const fitLog = (log: CanonicalLog): CanonicalLog => ({
  ...log,
  message: fitTextBytes(log.message)!,
  agentName: cutName(log.agentName, MAX_AGENT_NAME_CHARS),
  attributes: truncateAttributes(log.attributes),
});
const fitSignal = (signal: CanonicalSignal): CanonicalSignal => ({
  ...signal,
  signalName: cutName(signal.signalName)!,
  agentName: cutName(signal.agentName, MAX_AGENT_NAME_CHARS),
  metadata: truncateAttributes(signal.metadata),
});

/** Telemetry cut to what the queue and the store take (see `fitSpan`): what the plan checks and the messages see. */
export function fitTelemetry(telemetry: Telemetry): Telemetry {
  return { spans: telemetry.spans.map(fitSpan), signals: telemetry.signals.map(fitSignal), logs: telemetry.logs.map(fitLog) };
}

/** Splits accepted telemetry into queue messages that each fit SQS, after cutting oversized fields. */
export const toIngestMessages = (tenantId: string, receivedAtMs: number, telemetry: Telemetry): IngestMessage[] =>
  packMessages(tenantId, receivedAtMs, fitTelemetry(telemetry));

/** Splits telemetry already fitted (`fitTelemetry`) into queue messages that each fit SQS. */
export function packMessages(tenantId: string, receivedAtMs: number, telemetry: Telemetry): IngestMessage[] {
  const messages: IngestMessage[] = [];
  let current: Extract<IngestMessage, { kind: 'telemetry' }> | undefined;
  let size = 0;
  const start = () => {
    current = { kind: 'telemetry', tenantId, receivedAtMs, spans: [], signals: [], logs: [] };
    size = Buffer.byteLength(JSON.stringify(current));
    messages.push(current);
    return current;
  };
  const add = <K extends 'spans' | 'signals' | 'logs'>(key: K, item: Telemetry[K][number]) => {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (!current || size + bytes > MAX_MESSAGE_BYTES) start();
    // Fitted items always fit; were one not to, SQS would refuse it on every retry: refuse it now.
    if (size + bytes > MAX_MESSAGE_BYTES)
      throw new ValidationError(`A ${key.slice(0, -1)} is larger than ingestion takes (${bytes} bytes as JSON, after cutting its texts)`);
    (current![key] as Array<typeof item>).push(item);
    size += bytes;
  };
  for (const span of telemetry.spans) add('spans', span);
  for (const signal of telemetry.signals) add('signals', signal);
  for (const log of telemetry.logs) add('logs', log);
  return messages;
}
