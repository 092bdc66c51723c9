import type { AttributeValue } from '../spans/model.ts';
import type { StoredSpan, TraceSummary } from '../spans/summary.ts';
import type { LakeRow } from './schema.ts';
import { attributeWord, FIELD_BOUNDARY, foldText, keywordList, SIGNATURE_COLUMN_NAMES, signatureOf, wordsOfFolded } from './text.ts';

/** A finished trace as the ingest worker has it: its summary and every span stored so far. */
export interface LakeTraceInput {
  summary: TraceSummary;
  spans: readonly StoredSpan[];
  /** The latest span write the summary saw. */
  revision: number;
}

/** A signal as the ingest worker stores it. */
export interface LakeSignalInput {
  id: string;
  signalName: string;
  value: number;
  traceId: string | null;
  spanId: string | null;
  agentId: string | null;
  metadata: Record<string, AttributeValue>;
  timestampMs: number;
}

/** The rows one write brings: the traces' rows, all their spans' rows, and signals. */
export interface LakeRows {
  traces: LakeRow[];
  spans: LakeRow[];
  signals: LakeRow[];
}

/**
 * The folded words of a trace kept for search, at most this many bytes of UTF-8: a Firehose record
 * holds at most 1,000 KiB (bytes, so text of three-byte characters must be measured as such), and the
 * words of a few hundred KB of text are what a person searches by. A longer trace keeps its first
 * part, in span order, and says so (`text_cut`).
 */
export const MAX_SEARCH_TEXT_BYTES = 256 * 1024;
const MAX_ERRORS_TEXT_BYTES = 32 * 1024;
const MAX_ATTRIBUTES_BYTES = 64 * 1024;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
/** A span's events as JSON, at most this long (an event list is cut from its end). */
const MAX_EVENTS_JSON_CHARS = 64 * 1024;

/** `key=value` pairs of an attribute set, nested objects flattened with dots, lists as JSON. */
export function attributePairs(attributes: Record<string, AttributeValue>, prefix = ''): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(attributes)) {
    const name = `${prefix}${key}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) pairs.push(...attributePairs(value, `${name}.`));
    else pairs.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return pairs;
}

/**
 * Words joined in order until the budget (bytes of UTF-8) is spent; whole words only. Each part (a
 * field) stands apart, after `FIELD_BOUNDARY`: folded text holds only letters, digits and spaces, so
 * a phrase (` payment declined `) cannot match the last word of one field and the first of the next.
 */
function cappedText(parts: Iterable<string | null>, maxBytes: number): { text: string; cut: boolean } {
  let text = ' ';
  let bytes = 1;
  for (const part of parts) {
    if (!part) continue;
    const words = foldText(part).slice(1);
    if (words === '') continue;
    const boundary = text === ' ' ? '' : `${FIELD_BOUNDARY} `;
    const wordsBytes = boundary.length + utf8Bytes(words);
    if (bytes + wordsBytes > maxBytes) {
      for (const [i, word] of words.split(' ').entries()) {
        const wordBytes = (i === 0 ? boundary.length : 0) + utf8Bytes(word) + 1;
        if (word === '') continue;
        if (bytes + wordBytes > maxBytes) break;
        text += `${i === 0 ? boundary : ''}${word} `;
        bytes += wordBytes;
      }
      return { text, cut: true };
    }
    text += `${boundary}${words}`;
    bytes += wordsBytes;
  }
  return { text, cut: false };
}

/** The words of a text `cappedText` made, without its field boundaries. */
const wordsOfCapped = (text: string): string[] => wordsOfFolded(text).filter((word) => word !== FIELD_BOUNDARY);

/** Newest-first order as one sortable text: 13 digits of epoch milliseconds (until the year 2286), then the id. */
export const positionOf = (startMs: number, traceId: string): string => `${String(Math.max(0, Math.trunc(startMs))).padStart(13, '0')}#${traceId}`;

const inStartOrder = (spans: readonly StoredSpan[]) => [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs || a.spanId.localeCompare(b.spanId));

/** The text a span is searched by: its name, tool, input (a tool's arguments), output (its result) and error. */
export const searchableFields = (span: Pick<StoredSpan, 'name' | 'toolName' | 'input' | 'output' | 'errorType' | 'statusMessage'>) =>
  [
    ['name', span.name],
    ['toolName', span.toolName],
    ['input', span.input],
    ['output', span.output],
    ['errorType', span.errorType],
    ['statusMessage', span.statusMessage],
  ] as const;

export function traceRow(tenantId: string, { summary, spans, revision }: LakeTraceInput, expiresMs: number): LakeRow {
  const ordered = inStartOrder(spans);
  const search = cappedText([summary.name, ...ordered.flatMap((s) => searchableFields(s).map(([, text]) => text))], MAX_SEARCH_TEXT_BYTES);
  const failed = ordered.filter((s) => s.status === 'error' || s.errorType !== null);
  const errors = cappedText(
    failed.flatMap((s) => [s.errorType, s.statusMessage]),
    MAX_ERRORS_TEXT_BYTES,
  );
  const pairs = ordered.flatMap((s) => attributePairs(s.attributes));
  const attributes = keywordList(pairs.map(([k, v]) => `${k}=${v}`));
  const signature = signatureOf([
    ...wordsOfCapped(search.text),
    ...wordsOfCapped(errors.text),
    ...(utf8Bytes(attributes) <= MAX_ATTRIBUTES_BYTES ? pairs.map(([k, v]) => attributeWord(k, v)) : []),
  ]);
  return {
    tenant_id: tenantId,
    trace_id: summary.traceId,
    start_ms: summary.startTimeMs,
    position: positionOf(summary.startTimeMs, summary.traceId),
    agent_id: summary.agentId,
    agent_name: summary.agentName,
    agents: keywordList([summary.agentName, summary.agentId].filter((v): v is string => v !== null)),
    name: summary.name,
    status: summary.status,
    end_ms: summary.endTimeMs,
    duration_ms: summary.durationMs,
    span_count: summary.spanCount,
    error_count: summary.errorCount,
    input_tokens: summary.inputTokens,
    output_tokens: summary.outputTokens,
    total_tokens: summary.totalTokens,
    cost: summary.cost,
    model: summary.model,
    models: keywordList(summary.models),
    model_names: JSON.stringify(summary.models),
    tools: keywordList(ordered.flatMap((s) => (s.toolName ? [s.toolName] : []))),
    session_id: summary.sessionId,
    user_id: summary.userId,
    experiment_id: summary.experimentId,
    variant: summary.variant,
    search_text: search.text,
    text_cut: search.cut,
    errors_text: errors.text,
    // A set too large to keep whole is left out of attribute search rather than cut mid-pair.
    attributes: utf8Bytes(attributes) <= MAX_ATTRIBUTES_BYTES ? attributes : keywordList([]),
    ...Object.fromEntries(SIGNATURE_COLUMN_NAMES.map((name, i) => [name, signature[i]!])),
    revision,
    expires_ms: expiresMs,
  };
}

function eventsJson(events: StoredSpan['events']): string {
  let kept = events;
  let json = JSON.stringify(kept);
  while (json.length > MAX_EVENTS_JSON_CHARS && kept.length > 0) {
    kept = kept.slice(0, Math.floor(kept.length / 2));
    json = JSON.stringify(kept);
  }
  return json;
}

export function spanRow(tenantId: string, summary: TraceSummary, span: StoredSpan, expiresMs: number): LakeRow {
  return {
    tenant_id: tenantId,
    trace_id: span.traceId,
    span_id: span.spanId,
    trace_start_ms: summary.startTimeMs,
    agent_id: summary.agentId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    status: span.status,
    status_message: span.statusMessage,
    error_type: span.errorType,
    model: span.model,
    provider: span.provider,
    operation: span.operation,
    input_tokens: span.inputTokens,
    output_tokens: span.outputTokens,
    cached_input_tokens: span.cachedInputTokens,
    cost: span.cost,
    cost_estimated: span.costEstimated,
    input: span.input,
    output: span.output,
    tool_name: span.toolName,
    session_id: span.sessionId,
    user_id: span.userId,
    start_ms: span.startTimeMs,
    end_ms: span.endTimeMs,
    duration_ms: span.durationMs,
    attributes: JSON.stringify(span.attributes),
    events: eventsJson(span.events),
    expires_ms: expiresMs,
  };
}

export function signalRow(tenantId: string, signal: LakeSignalInput, expiresMs: number): LakeRow {
  return {
    tenant_id: tenantId,
    signal_id: signal.id,
    timestamp_ms: signal.timestampMs,
    trace_id: signal.traceId,
    span_id: signal.spanId,
    agent_id: signal.agentId,
    name: signal.signalName,
    value: signal.value,
    metadata: JSON.stringify(signal.metadata),
    expires_ms: expiresMs,
  };
}

/** Every row a write of these traces and signals puts in the lake (each trace with all its spans). */
export function lakeRowsOf(tenantId: string, traces: readonly LakeTraceInput[], signals: readonly LakeSignalInput[], expiresMs: number): LakeRows {
  return {
    traces: traces.map((t) => traceRow(tenantId, t, expiresMs)),
    spans: traces.flatMap((t) => t.spans.map((s) => spanRow(tenantId, t.summary, s, expiresMs))),
    signals: signals.map((s) => signalRow(tenantId, s, expiresMs)),
  };
}
