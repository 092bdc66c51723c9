import { roundCost } from '../pricing/estimate.ts';
import { type CanonicalSpan, storableSum } from './model.ts';

/** A span as stored: the canonical span plus what the worker resolved. */
export interface StoredSpan extends CanonicalSpan {
  agentId: string | null;
  durationMs: number | null;
  /** True when `cost` came from the price table rather than from the caller. */
  costEstimated: boolean;
}

/** A trace's status is its root span's; before the root arrives, error if any span failed. */
export const TRACE_STATUSES = ['ok', 'error'] as const;
export type TraceStatus = (typeof TRACE_STATUSES)[number];

export interface TraceSummary {
  traceId: string;
  agentId: string | null;
  agentName: string | null;
  name: string;
  rootSpanId: string | null;
  status: TraceStatus;
  startTimeMs: number;
  endTimeMs: number | null;
  durationMs: number | null;
  spanCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
  model: string | null;
  models: string[];
  /** Every tool its spans called and every error type its spans reported, distinct and sorted (what the list filters match). */
  toolNames: string[];
  errorTypes: string[];
  /** Its spans' tags, distinct and sorted (the first MAX_TRACE_TAGS), and their metadata's text, number and boolean values as text, the root's first (what `tag` and `metadata` match). */
  tags: string[];
  metadata: Record<string, string>;
  sessionId: string | null;
  userId: string | null;
  experimentId: string | null;
  variant: string | null;
  /** The root span has arrived and ended. */
  complete: boolean;
  /**
   * When the service closed the trace while it was not complete, no span having arrived for
   * TRACE_QUIET_MS (its root lost or never sent): from then on it is listed, counted and analysed as
   * finished, with what it had. Null for a trace that finished (or is still open); it stays set when
   * spans, even the root, arrive after closing.
   */
  closedAtMs: number | null;
}

/**
 * How long after the last span of an unfinished trace arrived the service closes it. An agent run
 * exports its spans as they end and its root last (OpenTelemetry), so a run that is still going sends
 * spans all along; an hour without any is a run whose root was lost (a crashed process, a dropped
 * export), and longer than an ingestion backlog usually lasts.
 */
export const TRACE_QUIET_MS = 60 * 60_000;

const isModelCall = (span: StoredSpan) => span.kind === 'llm' || span.kind === 'embedding';

/**
 * Spans whose usage is already reported by a descendant. Agent, chain, tool and other wrapper spans
 * often repeat the totals of the model calls below them; counting both would double the tokens and
 * cost. A model call reports its own usage: it repeats a descendant's only when every span from that
 * one up to it is a model call of the same kind (a framework's span around the provider SDK's span of
 * the same request). A call reached through a tool or an agent is a call of its own (a sub-agent's).
 */
function spansWithReportingDescendants(spans: readonly StoredSpan[], reports: (s: StoredSpan) => boolean): Set<string> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const covered = new Set<string>();
  for (const span of spans) {
    if (!reports(span)) continue;
    const seen = new Set<string>();
    let sameRequest = isModelCall(span);
    let parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    while (parent && !seen.has(parent.spanId)) {
      seen.add(parent.spanId);
      sameRequest &&= parent.kind === span.kind;
      if (sameRequest || !isModelCall(parent)) covered.add(parent.spanId);
      parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined;
    }
  }
  return covered;
}

/** A trace keeps this many tags and metadata keys (the spans may carry more; the trace detail shows them all). */
export const MAX_TRACE_TAGS = 50;
export const MAX_TRACE_METADATA_KEYS = 50;
/** Metadata values longer than this are no filter value (a prompt, a document): left out of the trace's metadata. */
export const MAX_TRACE_METADATA_CHARS = 256;

/** The trace's metadata as filters match it: scalar values as text, the top span's first, then in start order. */
function traceMetadata(top: StoredSpan, ordered: readonly StoredSpan[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const span of [top, ...ordered]) {
    for (const [key, value] of Object.entries(span.metadata ?? {})) {
      if (Object.keys(out).length >= MAX_TRACE_METADATA_KEYS) return out;
      if (Object.hasOwn(out, key) || value === null || typeof value === 'object') continue;
      const text = String(value);
      if (text.length <= MAX_TRACE_METADATA_CHARS) out[key] = text;
    }
  }
  return out;
}

const first = <T>(spans: readonly StoredSpan[], pick: (s: StoredSpan) => T | null): T | null => {
  for (const s of spans) {
    const v = pick(s);
    if (v !== null && v !== undefined) return v;
  }
  return null;
};

/**
 * The trace summary, computed from all spans of the trace seen so far. It depends only on the set of
 * spans (and, once closed, when the trace was closed), never on the order they arrived in, so
 * recomputing after every batch is always correct.
 */
export function summarizeTrace(spans: readonly StoredSpan[], closedAtMs: number | null = null): TraceSummary {
  if (spans.length === 0) throw new Error('a trace summary needs at least one span');
  const ids = new Set(spans.map((s) => s.spanId));
  const ordered = [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs || a.spanId.localeCompare(b.spanId));
  const roots = ordered.filter((s) => !s.parentSpanId);
  const root = roots[0] ?? null;
  const top = root ?? ordered.find((s) => !s.parentSpanId || !ids.has(s.parentSpanId)) ?? ordered[0]!;

  const hasTokens = (s: StoredSpan) => (s.inputTokens ?? 0) + (s.outputTokens ?? 0) > 0;
  const hasCost = (s: StoredSpan) => (s.cost ?? 0) > 0;
  const tokenCovered = spansWithReportingDescendants(spans, hasTokens);
  const costCovered = spansWithReportingDescendants(spans, hasCost);
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  const tokensByModel = new Map<string, number>();
  for (const s of spans) {
    if (!tokenCovered.has(s.spanId)) {
      inputTokens += s.inputTokens ?? 0;
      outputTokens += s.outputTokens ?? 0;
    }
    if (!costCovered.has(s.spanId)) cost += s.cost ?? 0;
    // A span repeating its descendants' usage (the AI SDK's generateText names the requested model,
    // its model calls the one that answered) would list the model twice.
    if (s.model && !tokenCovered.has(s.spanId)) tokensByModel.set(s.model, (tokensByModel.get(s.model) ?? 0) + (s.inputTokens ?? 0) + (s.outputTokens ?? 0));
  }
  const models = [...tokensByModel.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m]) => m);
  const distinctSorted = (pick: (s: StoredSpan) => string | null) => [...new Set(spans.map(pick).filter((v): v is string => v !== null))].sort();

  const startTimeMs = ordered[0]!.startTimeMs;
  const ends = spans.map((s) => s.endTimeMs).filter((e): e is number => e !== null);
  const endTimeMs = root ? root.endTimeMs : ends.length > 0 ? ends.reduce((a, b) => Math.max(a, b)) : null;
  const errorCount = spans.filter((s) => s.status === 'error').length;
  const status = root ? (root.status === 'error' ? 'error' : 'ok') : errorCount > 0 ? 'error' : 'ok';

  return {
    traceId: top.traceId,
    agentId: top.agentId ?? first(ordered, (s) => s.agentId),
    agentName: top.agentName ?? first(ordered, (s) => s.agentName),
    name: top.name,
    rootSpanId: root?.spanId ?? null,
    status,
    startTimeMs,
    endTimeMs,
    durationMs: endTimeMs === null ? null : Math.max(0, endTimeMs - startTimeMs),
    spanCount: spans.length,
    errorCount,
    inputTokens: storableSum(inputTokens),
    outputTokens: storableSum(outputTokens),
    totalTokens: storableSum(inputTokens + outputTokens),
    cost: storableSum(roundCost(cost)),
    model: models[0] ?? null,
    models,
    toolNames: distinctSorted((s) => s.toolName),
    errorTypes: distinctSorted((s) => s.errorType),
    tags: [...new Set(spans.flatMap((s) => s.tags ?? []))].sort().slice(0, MAX_TRACE_TAGS),
    metadata: traceMetadata(top, ordered),
    sessionId: first(ordered, (s) => s.sessionId),
    userId: first(ordered, (s) => s.userId),
    experimentId: first(ordered, (s) => s.experimentId),
    variant: first(ordered, (s) => s.variant),
    complete: root !== null && root.endTimeMs !== null,
    closedAtMs,
  };
}
