import { isStorableNumber, storableOrNull, type AttributeValue, type CanonicalLog, type CanonicalSignal, type CanonicalSpan } from '../spans/model.ts';

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
  | { kind: 'purge-agent'; tenantId: string; agentId: string; finalSweep?: true };

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
const MAX_TAGS = 50;
const MAX_TAG_CHARS = 256;

/** Cuts text to `max` characters and says so in the text itself, so nothing is dropped silently. */
export function truncateText(text: string | null, max = MAX_TEXT_CHARS): string | null {
  if (text === null || text.length <= max) return text;
  return `${text.slice(0, max)}…[truncated ${text.length - max} characters]`;
}

/**
 * A key named `__proto__` (JSON allows it) is kept under another name: assigned to a plain object, as
 * the DynamoDB marshaller does, it would set the prototype instead, and the worker could never store it.
 */
const storableKey = (key: string): string => (key === '__proto__' ? '[__proto__]' : key);

function truncateValue(value: AttributeValue): AttributeValue {
  if (typeof value === 'string') return truncateText(value, MAX_ATTRIBUTE_TEXT_CHARS);
  if (typeof value === 'number') return isStorableNumber(value) ? value : String(value);
  if (Array.isArray(value)) return value.map(truncateValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableKey(k), truncateValue(v)]));
  return value;
}

export function truncateAttributes(attributes: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const cut = truncateValue(attributes) as Record<string, AttributeValue>;
  if (Buffer.byteLength(JSON.stringify(cut)) <= MAX_ATTRIBUTES_BYTES) return cut;
  const keys = Object.keys(attributes);
  return { 'aos.truncated': `${keys.length} attributes over 32 KB were not kept: ${keys.slice(0, 20).join(', ')}` };
}

export function fitSpan(span: CanonicalSpan): CanonicalSpan {
  return {
    ...span,
    input: truncateText(span.input),
    output: truncateText(span.output),
    statusMessage: truncateText(span.statusMessage, MAX_ATTRIBUTE_TEXT_CHARS),
    inputTokens: storableOrNull(span.inputTokens),
    outputTokens: storableOrNull(span.outputTokens),
    cachedInputTokens: storableOrNull(span.cachedInputTokens),
    reasoningTokens: storableOrNull(span.reasoningTokens),
    cost: storableOrNull(span.cost),
    tags: span.tags.slice(0, MAX_TAGS).map((tag) => truncateText(tag, MAX_TAG_CHARS)!),
    metadata: truncateAttributes(span.metadata),
    attributes: truncateAttributes(span.attributes),
    events: span.events.slice(0, 64).map((e) => ({ ...e, attributes: truncateAttributes(e.attributes) })),
  };
}

const fitLog = (log: CanonicalLog): CanonicalLog => ({ ...log, message: truncateText(log.message)!, attributes: truncateAttributes(log.attributes) });
const fitSignal = (signal: CanonicalSignal): CanonicalSignal => ({ ...signal, metadata: truncateAttributes(signal.metadata) });

/** Splits accepted telemetry into queue messages that each fit SQS, after cutting oversized fields. */
export function toIngestMessages(tenantId: string, receivedAtMs: number, telemetry: Telemetry): IngestMessage[] {
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
    (current![key] as Array<typeof item>).push(item);
    size += bytes;
  };
  for (const span of telemetry.spans) add('spans', fitSpan(span));
  for (const signal of telemetry.signals) add('signals', fitSignal(signal));
  for (const log of telemetry.logs) add('logs', fitLog(log));
  return messages;
}
