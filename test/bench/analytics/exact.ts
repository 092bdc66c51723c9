import { bucketStart, type Granularity } from '#shared/domain/analytics/buckets.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { agentMetrics } from '../../unit/analytics/fixtures.ts';

/** What a set of traces adds up to, computed exactly from the trace summaries. */
export interface ExactTotals {
  requestCount: number;
  successCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  /** Whole nano-dollars: every trace's cost is on the 1e-9 grid, so this sum is exact, unlike a sum of dollars. */
  costNanos: number;
  /** Every duration, ascending. */
  latenciesMs: number[];
  /** The spec's per-agent metrics of these traces, by the oracle the unit tests check rollups against. */
  metrics: ReturnType<typeof agentMetrics>;
}

/** The answer of the six analytics endpoints for one range, computed exactly from the range's trace summaries. */
export interface ExactAnswer {
  overall: ExactTotals;
  byAgent: Map<string, ExactTotals>;
  byModel: Map<string | null, ExactTotals>;
  /** Per series point, by its start at the range's granularity. */
  byPoint: Map<number, ExactTotals>;
}

const toNanos = (dollars: number) => Math.round(dollars * 1e9);

export function exactTotals(traces: readonly TraceSummary[]): ExactTotals {
  const totals = { requestCount: traces.length, successCount: 0, errorCount: 0, inputTokens: 0, outputTokens: 0, costNanos: 0 };
  const latenciesMs: number[] = [];
  for (const t of traces) {
    if (t.status === 'error') totals.errorCount++;
    else totals.successCount++;
    totals.inputTokens += t.inputTokens;
    totals.outputTokens += t.outputTokens;
    totals.costNanos += toNanos(t.cost);
    if (t.durationMs !== null) latenciesMs.push(t.durationMs);
  }
  return { ...totals, latenciesMs: latenciesMs.sort((a, b) => a - b), metrics: agentMetrics(traces) };
}

function groupBy<K>(traces: readonly TraceSummary[], keyOf: (t: TraceSummary) => K): Map<K, ExactTotals> {
  const groups = new Map<K, TraceSummary[]>();
  for (const t of traces) {
    const key = keyOf(t);
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  return new Map([...groups].map(([key, group]) => [key, exactTotals(group)]));
}

/** Only the traces that started in [startMs, endMs): a summary scan's bounds include the end. */
export function exactAnswer(summaries: readonly TraceSummary[], startMs: number, endMs: number, granularity: Granularity): ExactAnswer {
  const traces = summaries.filter((t) => t.startTimeMs >= startMs && t.startTimeMs < endMs);
  return {
    overall: exactTotals(traces),
    byAgent: groupBy(
      traces.filter((t) => t.agentId !== null),
      (t) => t.agentId!,
    ),
    byModel: groupBy(traces, (t) => t.model),
    byPoint: groupBy(traces, (t) => bucketStart(t.startTimeMs, granularity)),
  };
}

export const NO_TRACES: ExactTotals = exactTotals([]);
