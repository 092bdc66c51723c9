import type { StoredSpan, TraceSummary } from '../spans/summary.ts';
import { duration, percent, utcHour } from './format.ts';
import type { AgentProfile } from './profile.ts';
import { sampleTrace } from './statistics.ts';

/** How far outside the profile a single trace must be to be anomalous. */
export const ANOMALY_THRESHOLDS = {
  /** An hour of the day with less than 1% of the agent's traffic is off-hours. */
  offHoursShare: 0.01,
  /** Slower than 3 times the profile's p95 latency. */
  latencyFactor: 3,
  /** Dearer than 5 times the profile's average cost per trace. */
  costFactor: 5,
} as const;

export const ANOMALY_TYPES = ['unusual-tool', 'unexpected-error', 'off-hours', 'high-latency', 'high-cost'] as const;
export type AnomalyType = (typeof ANOMALY_TYPES)[number];

export interface TraceAnomaly {
  type: AnomalyType;
  message: string;
}

/**
 * Per-trace anomaly detection against a steady-state profile (spec: unusual tool usage, unexpected
 * errors, off-hours activity), plus latency and cost far outside the profile.
 */
export function detectTraceAnomalies(summary: TraceSummary, spans: readonly StoredSpan[], profile: AgentProfile): TraceAnomaly[] {
  const t = ANOMALY_THRESHOLDS;
  const trace = sampleTrace(summary, spans);
  const anomalies: TraceAnomaly[] = [];

  const known = new Map(profile.toolPatterns.distribution.map((u) => [u.tool, u]));
  const rare = new Map(profile.toolPatterns.anomalousUsage.filter((u) => u.kind === 'rare').map((u) => [u.tool, u.detail]));
  for (const tool of new Set(trace.toolCalls.map((c) => c.tool))) {
    if (!known.has(tool)) anomalies.push({ type: 'unusual-tool', message: `tool "${tool}" is not part of the agent's profile` });
    else if (rare.has(tool)) anomalies.push({ type: 'unusual-tool', message: `tool "${tool}" is rarely used (${rare.get(tool)})` });
  }

  const expectedErrors = new Set(profile.errorPatterns.commonTypes.map((e) => e.type));
  for (const type of new Set(trace.errorTypes)) {
    if (!expectedErrors.has(type)) anomalies.push({ type: 'unexpected-error', message: `error type "${type}" is not among the agent's usual errors` });
  }

  const { volumeByHour, seasonality } = profile.temporalPatterns;
  const hour = new Date(summary.startTimeMs).getUTCHours();
  const share = volumeByHour[hour] ?? 0;
  if (seasonality !== 'insufficient-data' && share < t.offHoursShare) {
    anomalies.push({ type: 'off-hours', message: `started at ${utcHour(hour)}, an hour with ${percent(share)} of the agent's traffic` });
  }

  const { p95Ms } = profile.volumeCharacteristics.typicalLatency;
  if (p95Ms !== null && p95Ms > 0 && summary.durationMs !== null && summary.durationMs > p95Ms * t.latencyFactor) {
    anomalies.push({ type: 'high-latency', message: `took ${duration(summary.durationMs)}, over ${t.latencyFactor}× the profile's p95 of ${duration(p95Ms)}` });
  }
  const { costPerTrace } = profile.volumeCharacteristics;
  if (costPerTrace > 0 && summary.cost > costPerTrace * t.costFactor) {
    anomalies.push({ type: 'high-cost', message: `cost $${summary.cost}, over ${t.costFactor}× the profile's average of $${costPerTrace.toPrecision(2)}` });
  }
  return anomalies;
}
