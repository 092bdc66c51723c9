import * as z from 'zod';
import { GRANULARITIES } from '../../domain/analytics/buckets.ts';
import { CURRENCY } from '../../domain/pricing/estimate.ts';
import { count, fraction, isoDateTime, usageAmount } from './common.ts';

/** A latency in milliseconds; null when nothing was measured. */
const latencyMs = z.number().nonnegative().nullable();
/** null when there is nothing to divide. */
const rate = fraction.nullable();

/** The spec's per-agent metrics (`GET /agents`, the metrics breakdown). */
export const agentMetrics = z.strictObject({
  requestCount: count,
  successRate: rate,
  errorRate: rate,
  avgLatencyMs: latencyMs,
  p95LatencyMs: latencyMs,
  totalTokens: usageAmount,
  estimatedCost: usageAmount,
});

const range = { startDate: isoDateTime, endDate: isoDateTime };
const seriesRange = { ...range, interval: z.enum(GRANULARITIES) };
const tokens = { inputTokens: usageAmount, outputTokens: usageAmount, totalTokens: usageAmount };
const outcomes = { totalTraces: count, successCount: count, errorCount: count, successRate: rate, errorRate: rate };
const latencyStats = {
  count,
  avgMs: latencyMs,
  minMs: latencyMs,
  maxMs: latencyMs,
  p50Ms: latencyMs,
  p75Ms: latencyMs,
  p90Ms: latencyMs,
  p95Ms: latencyMs,
  p99Ms: latencyMs,
};
const requestsAndCost = { requestCount: count, cost: usageAmount };

/** One point per bucket of the range, zero-filled, in time order. */
const series = (point: z.core.$ZodLooseShape) => z.array(z.strictObject({ timestamp: isoDateTime, ...point }));

export const dashboardMetrics = z.strictObject({
  ...range,
  totalTraces: count,
  successRate: rate,
  errorRate: rate,
  avgLatencyMs: latencyMs,
  p50LatencyMs: latencyMs,
  p95LatencyMs: latencyMs,
  p99LatencyMs: latencyMs,
  ...tokens,
  totalCost: usageAmount,
  currency: z.literal(CURRENCY),
  activeAgents: count,
  byAgent: z.array(z.strictObject({ agentId: z.string(), agentName: z.string(), ...agentMetrics.shape })),
});

export const successFailure = z.strictObject({ ...seriesRange, ...outcomes, series: series(outcomes) });

export const requestsOverTime = z.strictObject({
  ...seriesRange,
  totalTraces: count,
  series: series({ requestCount: count }),
});

export const latencyPercentiles = z.strictObject({ ...seriesRange, ...latencyStats, series: series(latencyStats) });

/** Spans without a model count under `model: null`. */
const model = z.string().nullable();

export const tokenUsage = z.strictObject({
  ...seriesRange,
  ...tokens,
  byModel: z.array(z.strictObject({ model, requestCount: count, ...tokens })),
  series: series(tokens),
});

export const costs = z.strictObject({
  ...seriesRange,
  currency: z.literal(CURRENCY),
  totalCost: usageAmount,
  byAgent: z.array(z.strictObject({ agentId: z.string(), agentName: z.string(), ...requestsAndCost })),
  byModel: z.array(z.strictObject({ model, ...requestsAndCost })),
  series: series(requestsAndCost),
});
