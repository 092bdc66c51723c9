import { type StoredSpan, TRACE_QUIET_MS, type TraceSummary } from '../spans/summary.ts';
import type { AlertConfig, ThresholdAlertType } from './config.ts';

/** One threshold crossing, before it becomes (or adds to) an alert. */
export interface Detection {
  type: ThresholdAlertType;
  traceId: string;
  spanId: string | null;
  /** What was measured (ms, tokens, dollars); null for a plain error. */
  value: number | null;
  threshold: number | null;
  message: string;
  occurredAtMs: number;
}

const TIMEOUT_TEXT = /time[d ]?\s?out|deadline exceeded|etimedout|esockettimedout/i;

export const looksLikeTimeout = (span: Pick<StoredSpan, 'errorType' | 'statusMessage'>): boolean =>
  TIMEOUT_TEXT.test(`${span.errorType ?? ''} ${span.statusMessage ?? ''}`);

type SpanLink = Pick<StoredSpan, 'spanId' | 'parentSpanId' | 'status'>;

/** The span by its kind and name, and its tool where the name does not say it (the AI SDK names every tool call `ai.toolCall`). */
const describeSpan = (span: StoredSpan) =>
  `${span.kind} span "${span.name}"${span.toolName && !span.name.includes(span.toolName) ? ` (tool "${span.toolName}")` : ''}`;

/**
 * The failed spans of a trace whose failure came up from a failed descendant: frameworks mark every
 * span an exception passes through as failed (the AI SDK's generateText and its model call, an agent
 * and its tool), but it is one failure, reported where it started.
 */
export function propagatedFailures(spans: readonly SpanLink[]): Set<string> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const propagated = new Set<string>();
  for (const span of spans) {
    if (span.status !== 'error') continue;
    const ancestors = new Map<string, SpanLink>();
    for (let parent = byId.get(span.parentSpanId ?? ''); parent && !ancestors.has(parent.spanId); parent = byId.get(parent.parentSpanId ?? '')) {
      ancestors.set(parent.spanId, parent);
    }
    // Spans whose parents form a cycle have no ancestors to speak of: each reports its own failure.
    if (ancestors.has(span.spanId)) continue;
    for (const ancestor of ancestors.values()) if (ancestor.status === 'error') propagated.add(ancestor.spanId);
  }
  return propagated;
}

/**
 * Per-call checks on a finished span: a failure (a timeout-like failure is a `timeout`, not also an
 * `error`) unless it only passed on a descendant's, and input tokens, output tokens and cost strictly
 * above their thresholds.
 */
export function detectInSpan(span: StoredSpan, config: AlertConfig, failurePropagated = false): Detection[] {
  const on = (type: ThresholdAlertType) => config.alertTypes[type].enabled;
  const at = span.endTimeMs ?? span.startTimeMs;
  const base = { traceId: span.traceId, spanId: span.spanId, occurredAtMs: at };
  const found: Detection[] = [];
  if (span.status === 'error' && !failurePropagated) {
    const reason = [span.errorType, span.statusMessage].filter(Boolean).join(': ') || 'no error message';
    if (looksLikeTimeout(span)) {
      if (on('timeout'))
        found.push({
          ...base,
          type: 'timeout',
          // How long the call ran before it failed; no threshold was crossed (its error said it timed out).
          value: span.durationMs,
          threshold: null,
          message: `${describeSpan(span)} timed out (${reason})`,
        });
    } else if (on('error')) {
      found.push({ ...base, type: 'error', value: null, threshold: null, message: `${describeSpan(span)} failed: ${reason}` });
    }
  }
  const { inputTokens, outputTokens, cost } = config.thresholds;
  if (on('highInputTokens') && span.inputTokens !== null && span.inputTokens > inputTokens) {
    found.push({
      ...base,
      type: 'highInputTokens',
      value: span.inputTokens,
      threshold: inputTokens,
      message: `${describeSpan(span)} used ${span.inputTokens} input tokens (threshold ${inputTokens})`,
    });
  }
  if (on('highOutputTokens') && span.outputTokens !== null && span.outputTokens > outputTokens) {
    found.push({
      ...base,
      type: 'highOutputTokens',
      value: span.outputTokens,
      threshold: outputTokens,
      message: `${describeSpan(span)} produced ${span.outputTokens} output tokens (threshold ${outputTokens})`,
    });
  }
  if (on('highCost') && span.cost !== null && span.cost > cost) {
    found.push({ ...base, type: 'highCost', value: span.cost, threshold: cost, message: `${describeSpan(span)} cost $${span.cost} (threshold $${cost})` });
  }
  return found;
}

/**
 * Checks on a finished trace: its duration strictly above the duration threshold, and at or above the
 * timeout threshold (a trace that ran as long as the timeout has timed out). When one of its spans
 * failed with a timeout (`spanTimedOut`), that is the trace's timeout occurrence: the trace reaching the
 * threshold is the same timeout seen from outside, not another one.
 */
export function detectInTrace(trace: TraceSummary, config: AlertConfig, spanTimedOut = false): Detection[] {
  if (!trace.complete && trace.closedAtMs !== null) return spanTimedOut ? [] : detectUnfinished(trace, trace.closedAtMs, config);
  if (!trace.complete || trace.durationMs === null || trace.endTimeMs === null) return [];
  const base = { traceId: trace.traceId, spanId: null, value: trace.durationMs, occurredAtMs: trace.endTimeMs };
  const { duration, timeout } = config.thresholds;
  const found: Detection[] = [];
  if (config.alertTypes.timeout.enabled && trace.durationMs >= timeout) {
    if (spanTimedOut) return found;
    found.push({
      ...base,
      type: 'timeout',
      threshold: timeout,
      message: `trace "${trace.name}" ran ${trace.durationMs} ms, reaching the ${timeout} ms timeout`,
    });
  } else if (config.alertTypes.highDuration.enabled && trace.durationMs > duration) {
    found.push({ ...base, type: 'highDuration', threshold: duration, message: `trace "${trace.name}" took ${trace.durationMs} ms (threshold ${duration} ms)` });
  }
  return found;
}

/**
 * A trace the service closed without its root span ending (the agent hung, crashed, or lost its root
 * span): it stayed unfinished from its start until it was closed, and reached the timeout if that is
 * longer than the threshold. The same occurrence as a timeout found when the root arrives later.
 */
function detectUnfinished(trace: TraceSummary, closedAtMs: number, config: AlertConfig): Detection[] {
  const { timeout } = config.thresholds;
  const openMs = Math.max(0, closedAtMs - trace.startTimeMs);
  if (!config.alertTypes.timeout.enabled || openMs < timeout) return [];
  const root = trace.rootSpanId === null ? 'no root span arrived' : 'its root span did not end';
  return [
    {
      type: 'timeout',
      traceId: trace.traceId,
      spanId: null,
      value: openMs,
      threshold: timeout,
      occurredAtMs: closedAtMs,
      message: `trace "${trace.name}" did not finish: ${root}, and no span arrived for ${Math.round(TRACE_QUIET_MS / 60_000)} minutes; closed ${openMs} ms after it started, past the ${timeout} ms timeout`,
    },
  ];
}
