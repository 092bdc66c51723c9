import type { TraceSummary } from '../spans/summary.ts';
import { bucketStart, type Granularity } from './buckets.ts';
import { LatencySketch } from './sketch.ts';

/**
 * Requests, tokens and cost. Cost is in whole nano-dollars (the 1e-9 grid `roundCost` rounds to), so
 * sums are exact integers whatever order rollups are merged in.
 */
export interface Usage {
  requestCount: number;
  inputTokens: number;
  outputTokens: number;
  costNanos: number;
}

/** Latency of the traces that have one (a trace still missing its end has none). */
export interface LatencyStats {
  count: number;
  /** Whole microseconds, exact under merging like the cost. */
  sumUs: number;
  minMs: number | null;
  maxMs: number | null;
  sketch: LatencySketch;
}

/** The mergeable aggregate of a set of traces: one trace is one request. */
export interface Rollup extends Usage {
  successCount: number;
  errorCount: number;
  latency: LatencyStats;
  /**
   * Usage by each trace's primary model (the one with the most tokens), null for traces that name
   * none: a trace summary does not split its tokens and cost between models.
   */
  models: ReadonlyMap<string | null, Usage>;
}

/** A rollup as DynamoDB stores it: numbers, strings, nulls and one list. */
export interface RollupItem extends Usage {
  successCount: number;
  errorCount: number;
  latencyCount: number;
  latencySumUs: number;
  latencyMinMs: number | null;
  latencyMaxMs: number | null;
  latencySketch: string;
  models: Array<Usage & { model: string | null }>;
}

const toNanos = (dollars: number): number => Math.round(dollars * 1e9);
export const dollarsOf = (nanos: number): number => nanos / 1e9;
const toMicros = (ms: number): number => Math.round(ms * 1000);

const NO_USAGE: Usage = { requestCount: 0, inputTokens: 0, outputTokens: 0, costNanos: 0 };

const addUsage = (a: Usage, b: Usage): Usage => ({
  requestCount: a.requestCount + b.requestCount,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  costNanos: a.costNanos + b.costNanos,
});

const sumUsage = (items: readonly Usage[]): Usage => items.reduce(addUsage, NO_USAGE);

const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((total, item) => total + pick(item), 0);

const extreme = (values: readonly (number | null)[], pick: (a: number, b: number) => number): number | null =>
  values.reduce<number | null>((found, v) => (v === null ? found : found === null ? v : pick(found, v)), null);

function usageByModel(entries: Iterable<readonly [string | null, Usage]>): Map<string | null, Usage> {
  const byModel = new Map<string | null, Usage>();
  for (const [model, usage] of entries) byModel.set(model, addUsage(byModel.get(model) ?? NO_USAGE, usage));
  return byModel;
}

function latencyOf(durationsMs: readonly number[]): LatencyStats {
  const sketch = LatencySketch.empty();
  for (const d of durationsMs) sketch.add(d);
  return {
    count: durationsMs.length,
    sumUs: sum(durationsMs, toMicros),
    minMs: extreme(durationsMs, Math.min),
    maxMs: extreme(durationsMs, Math.max),
    sketch,
  };
}

function mergeLatency(stats: readonly LatencyStats[]): LatencyStats {
  return {
    count: sum(stats, (s) => s.count),
    sumUs: sum(stats, (s) => s.sumUs),
    minMs: extreme(stats.map((s) => s.minMs), Math.min),
    maxMs: extreme(stats.map((s) => s.maxMs), Math.max),
    sketch: LatencySketch.merge(stats.map((s) => s.sketch)),
  };
}

const usageOfTrace = (t: TraceSummary): Usage => ({
  requestCount: 1,
  inputTokens: t.inputTokens,
  outputTokens: t.outputTokens,
  costNanos: toNanos(t.cost),
});

export function rollupOf(summaries: readonly TraceSummary[]): Rollup {
  const usages = summaries.map(usageOfTrace);
  const errorCount = summaries.filter((t) => t.status === 'error').length;
  return {
    ...sumUsage(usages),
    successCount: summaries.length - errorCount,
    errorCount,
    latency: latencyOf(summaries.map((t) => t.durationMs).filter((d): d is number => d !== null)),
    models: usageByModel(summaries.map((t, i) => [t.model, usages[i]!] as const)),
  };
}

/** The rollup of the union of the rollups' trace sets (which must not overlap). */
export function mergeRollups(rollups: readonly Rollup[]): Rollup {
  return {
    ...sumUsage(rollups),
    successCount: sum(rollups, (r) => r.successCount),
    errorCount: sum(rollups, (r) => r.errorCount),
    latency: mergeLatency(rollups.map((r) => r.latency)),
    models: usageByModel(rollups.flatMap((r) => [...r.models])),
  };
}

export const emptyRollup = (): Rollup => mergeRollups([]);

/** Per bucket start, the rollup of the traces that started in that bucket. */
export function rollupsByBucket(summaries: readonly TraceSummary[], granularity: Granularity): Map<number, Rollup> {
  const groups = new Map<number, TraceSummary[]>();
  for (const t of summaries) {
    const start = bucketStart(t.startTimeMs, granularity);
    const group = groups.get(start);
    if (group) group.push(t);
    else groups.set(start, [t]);
  }
  return new Map([...groups].map(([start, group]) => [start, rollupOf(group)]));
}

/**
 * The latency at quantile q, within 1% of the exact nearest-rank value. Clamped to the exact min and
 * max, which can only bring it closer (the exact value lies between them).
 */
export function latencyQuantile({ sketch, minMs, maxMs }: LatencyStats, q: number): number | null {
  const estimate = sketch.quantile(q);
  if (estimate === null || minMs === null || maxMs === null) return null;
  return Math.min(Math.max(estimate, minMs), maxMs);
}

export const averageLatencyMs = ({ count, sumUs }: LatencyStats): number | null => (count === 0 ? null : sumUs / count / 1000);

/** Locale-independent, so the same rollup always makes the same item. */
const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function rollupToItem(rollup: Rollup): RollupItem {
  const { latency } = rollup;
  return {
    requestCount: rollup.requestCount,
    successCount: rollup.successCount,
    errorCount: rollup.errorCount,
    inputTokens: rollup.inputTokens,
    outputTokens: rollup.outputTokens,
    costNanos: rollup.costNanos,
    latencyCount: latency.count,
    latencySumUs: latency.sumUs,
    latencyMinMs: latency.minMs,
    latencyMaxMs: latency.maxMs,
    latencySketch: latency.sketch.serialize(),
    models: [...rollup.models].sort(([a], [b]) => codePointOrder(a ?? '', b ?? '')).map(([model, usage]) => ({ model, ...usage })),
  };
}

export function rollupFromItem(item: RollupItem): Rollup {
  return {
    requestCount: item.requestCount,
    successCount: item.successCount,
    errorCount: item.errorCount,
    inputTokens: item.inputTokens,
    outputTokens: item.outputTokens,
    costNanos: item.costNanos,
    latency: {
      count: item.latencyCount,
      sumUs: item.latencySumUs,
      minMs: item.latencyMinMs,
      maxMs: item.latencyMaxMs,
      sketch: LatencySketch.deserialize(item.latencySketch),
    },
    models: new Map(item.models.map(({ model, ...usage }) => [model, usage])),
  };
}
