import { CURRENCY } from '../pricing/estimate.ts';
import { bucketsBetween } from './buckets.ts';
import { averageLatencyMs, dollarsOf, emptyRollup, type LatencyStats, latencyQuantile, type Rollup, type Usage } from './rollup.ts';
import type { AnalyticsWindow } from './window.ts';

export interface AgentRollup {
  agentId: string;
  agentName: string;
  rollup: Rollup;
}

/** What the six analytics responses are shaped from; each view takes the parts it needs. */
export interface AnalyticsInput {
  window: AnalyticsWindow;
  /** The whole range. */
  overall: Rollup;
  /** Per series point, keyed by its bucket start at the window's granularity; a missing point is empty. */
  buckets: ReadonlyMap<number, Rollup>;
  agents: readonly AgentRollup[];
}

type SeriesInput = Pick<AnalyticsInput, 'window' | 'overall' | 'buckets'>;

const roundTo = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
/** A fraction 0–1 to 4 decimals; null when there is nothing to divide. */
const rate = (part: number, whole: number) => (whole === 0 ? null : roundTo(part / whole, 4));
/** Latencies to the microsecond, the resolution rollups sum them at. */
const toMicrosecond = (ms: number | null) => (ms === null ? null : roundTo(ms, 3));
const avgMs = (latency: LatencyStats) => toMicrosecond(averageLatencyMs(latency));
const percentileMs = (latency: LatencyStats, q: number) => toMicrosecond(latencyQuantile(latency, q));
const iso = (ms: number) => new Date(ms).toISOString();

const largestFirst =
  <T>(size: (item: T) => number, name: (item: T) => string) =>
  (a: T, b: T) =>
    size(b) - size(a) || name(a).localeCompare(name(b));

const rangeFields = ({ startMs, endMs }: AnalyticsWindow) => ({ startDate: iso(startMs), endDate: iso(endMs) });
const seriesFields = (window: AnalyticsWindow) => ({ ...rangeFields(window), interval: window.granularity });

/** One point per bucket of the window, zero-filled, in time order. */
function series<T extends object>({ window, buckets }: SeriesInput, point: (r: Rollup) => T) {
  return bucketsBetween(window.startMs, window.endMs, window.granularity).map((start) => ({
    timestamp: iso(start),
    ...point(buckets.get(start) ?? emptyRollup()),
  }));
}

const outcomes = (r: Rollup) => ({
  totalTraces: r.requestCount,
  successCount: r.successCount,
  errorCount: r.errorCount,
  successRate: rate(r.successCount, r.requestCount),
  errorRate: rate(r.errorCount, r.requestCount),
});

const tokens = (u: Usage) => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  totalTokens: u.inputTokens + u.outputTokens,
});

const latencyStats = ({ latency }: Rollup) => ({
  count: latency.count,
  avgMs: avgMs(latency),
  minMs: toMicrosecond(latency.minMs),
  maxMs: toMicrosecond(latency.maxMs),
  p50Ms: percentileMs(latency, 0.5),
  p75Ms: percentileMs(latency, 0.75),
  p90Ms: percentileMs(latency, 0.9),
  p95Ms: percentileMs(latency, 0.95),
  p99Ms: percentileMs(latency, 0.99),
});

const requestsAndCost = (u: Usage) => ({ requestCount: u.requestCount, cost: dollarsOf(u.costNanos) });

/** The spec's per-agent metrics (GET /agents, the metrics endpoint's breakdown), from a rollup. */
export function agentMetricsOf(r: Rollup) {
  return {
    requestCount: r.requestCount,
    successRate: rate(r.successCount, r.requestCount),
    errorRate: rate(r.errorCount, r.requestCount),
    avgLatencyMs: avgMs(r.latency),
    p95LatencyMs: percentileMs(r.latency, 0.95),
    totalTokens: r.inputTokens + r.outputTokens,
    estimatedCost: dollarsOf(r.costNanos),
  };
}

/** GET /analytics/metrics */
export function metricsView({ window, overall, agents }: Pick<AnalyticsInput, 'window' | 'overall' | 'agents'>) {
  const { totalTraces, successRate, errorRate } = outcomes(overall);
  return {
    ...rangeFields(window),
    totalTraces,
    successRate,
    errorRate,
    avgLatencyMs: avgMs(overall.latency),
    p50LatencyMs: percentileMs(overall.latency, 0.5),
    p95LatencyMs: percentileMs(overall.latency, 0.95),
    p99LatencyMs: percentileMs(overall.latency, 0.99),
    ...tokens(overall),
    totalCost: dollarsOf(overall.costNanos),
    currency: CURRENCY,
    activeAgents: agents.filter((a) => a.rollup.requestCount > 0).length,
    byAgent: [...agents]
      .sort(
        largestFirst(
          (a) => a.rollup.requestCount,
          (a) => a.agentName,
        ),
      )
      .map((a) => ({ agentId: a.agentId, agentName: a.agentName, ...agentMetricsOf(a.rollup) })),
  };
}

/** GET /analytics/traces/success-failure */
export function successFailureView(input: SeriesInput) {
  return { ...seriesFields(input.window), ...outcomes(input.overall), series: series(input, outcomes) };
}

/** GET /analytics/traces/requests-over-time */
export function requestsOverTimeView(input: SeriesInput) {
  return {
    ...seriesFields(input.window),
    totalTraces: input.overall.requestCount,
    series: series(input, (r) => ({ requestCount: r.requestCount })),
  };
}

/** GET /analytics/traces/latency-percentiles */
export function latencyPercentilesView(input: SeriesInput) {
  return { ...seriesFields(input.window), ...latencyStats(input.overall), series: series(input, latencyStats) };
}

/** GET /analytics/traces/token-usage */
export function tokenUsageView(input: SeriesInput) {
  return {
    ...seriesFields(input.window),
    ...tokens(input.overall),
    byModel: [...input.overall.models]
      .map(([model, usage]) => ({ model, requestCount: usage.requestCount, ...tokens(usage) }))
      .sort(
        largestFirst(
          (m) => m.totalTokens,
          (m) => m.model ?? '',
        ),
      ),
    series: series(input, tokens),
  };
}

/** GET /analytics/costs */
export function costsView(input: AnalyticsInput) {
  return {
    ...seriesFields(input.window),
    currency: CURRENCY,
    totalCost: dollarsOf(input.overall.costNanos),
    byAgent: input.agents
      .map((a) => ({ agentId: a.agentId, agentName: a.agentName, ...requestsAndCost(a.rollup) }))
      .sort(
        largestFirst(
          (a) => a.cost,
          (a) => a.agentName,
        ),
      ),
    byModel: [...input.overall.models]
      .map(([model, usage]) => ({ model, ...requestsAndCost(usage) }))
      .sort(
        largestFirst(
          (m) => m.cost,
          (m) => m.model ?? '',
        ),
      ),
    series: series(input, requestsAndCost),
  };
}
