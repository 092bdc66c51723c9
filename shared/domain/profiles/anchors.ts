import { duration, percent } from './format.ts';
import type { WindowMeasurement } from './measurement.ts';
import type { AgentProfile } from './profile.ts';
import { round } from './statistics.ts';

export const ANCHOR_STATUSES = ['passing', 'failing', 'unknown'] as const;
export type AnchorStatus = (typeof ANCHOR_STATUSES)[number];

export const ANCHOR_METRICS = ['errorRate', 'averageLatencyMs', 'p95LatencyMs', 'costPerTrace', 'toolUsageRate'] as const;
export type AnchorMetric = (typeof ANCHOR_METRICS)[number];

/** A measurable health invariant generated with a profile (spec: Anchor). */
export interface Anchor {
  /** Stable across regenerations of the same invariant: `error-rate`, `tool-usage:<tool>`, … */
  id: string;
  metric: AnchorMetric;
  /** The tool of a `toolUsageRate` anchor, else null. */
  tool: string | null;
  description: string;
  min: number | null;
  max: number | null;
  status: AnchorStatus;
  /** The value the last learning cycle measured; null when it saw no traces. */
  lastValue: number | null;
  /** Traces that value was measured over (sampled traces for tool usage). */
  lastSampleSize: number;
  lastEvaluatedAt: string | null;
}

/** How far a measurement may stray from the profile before its anchor fails. */
export const ANCHOR_TOLERANCE = {
  /** Error rate: at most twice the profile's, and never less than 5 points above it. */
  errorRateFactor: 2,
  errorRateMargin: 0.05,
  averageLatencyFactor: 1.5,
  p95LatencyFactor: 2,
  costFactor: 2,
  /** Tools called in at least this share of traces get a usage anchor (the 3 most used). */
  toolMinTraceRate: 0.2,
  maxToolAnchors: 3,
  /** Tool usage: between half the profile's rate and 1.5 times it plus 5 points. */
  toolLowFactor: 0.5,
  toolHighFactor: 1.5,
  toolHighMargin: 0.05,
} as const;

type Bounds = Pick<Anchor, 'id' | 'metric' | 'tool' | 'description' | 'min' | 'max'>;

const unmeasured = (bounds: Bounds): Anchor => ({ ...bounds, status: 'unknown', lastValue: null, lastSampleSize: 0, lastEvaluatedAt: null });

/** The anchors of a profile: error rate, latency, cost per trace, and the usage of its main tools. */
export function generateAnchors(profile: AgentProfile): Anchor[] {
  const t = ANCHOR_TOLERANCE;
  const { rate } = profile.errorPatterns;
  const { typicalLatency, costPerTrace } = profile.volumeCharacteristics;
  const bounds: Bounds[] = [];
  const errorMax = round(Math.min(1, Math.max(rate * t.errorRateFactor, rate + t.errorRateMargin)));
  bounds.push({ id: 'error-rate', metric: 'errorRate', tool: null, description: `Error rate at most ${percent(errorMax)}`, min: null, max: errorMax });
  if (typicalLatency.averageMs !== null) {
    const max = round(typicalLatency.averageMs * t.averageLatencyFactor, 1);
    bounds.push({ id: 'average-latency', metric: 'averageLatencyMs', tool: null, description: `Average latency at most ${duration(max)}`, min: null, max });
  }
  if (typicalLatency.p95Ms !== null) {
    const max = round(typicalLatency.p95Ms * t.p95LatencyFactor, 1);
    bounds.push({ id: 'p95-latency', metric: 'p95LatencyMs', tool: null, description: `p95 latency at most ${duration(max)}`, min: null, max });
  }
  if (costPerTrace > 0) {
    const max = round(costPerTrace * t.costFactor, 9);
    bounds.push({ id: 'cost-per-trace', metric: 'costPerTrace', tool: null, description: `Cost per trace at most $${max.toPrecision(2)}`, min: null, max });
  }
  const mainTools = [...profile.toolPatterns.distribution]
    .filter((u) => u.traceRate >= t.toolMinTraceRate)
    .sort((a, b) => b.traceRate - a.traceRate || a.tool.localeCompare(b.tool))
    .slice(0, t.maxToolAnchors);
  for (const { tool, traceRate } of mainTools) {
    const min = round(traceRate * t.toolLowFactor);
    const max = round(Math.min(1, traceRate * t.toolHighFactor + t.toolHighMargin));
    bounds.push({
      id: `tool-usage:${tool}`,
      metric: 'toolUsageRate',
      tool,
      description: `${tool} called in ${percent(min)}–${percent(max)} of traces`,
      min,
      max,
    });
  }
  return bounds.map(unmeasured);
}

function measured(anchor: Anchor, m: WindowMeasurement): { value: number | null; sampleSize: number } {
  switch (anchor.metric) {
    case 'errorRate':
      return { value: m.errorRate, sampleSize: m.traceCount };
    case 'averageLatencyMs':
      return { value: m.averageLatencyMs, sampleSize: m.traceCount };
    case 'p95LatencyMs':
      return { value: m.p95LatencyMs, sampleSize: m.traceCount };
    case 'costPerTrace':
      return { value: m.costPerTrace, sampleSize: m.traceCount };
    case 'toolUsageRate':
      return { value: m.sampledTraces === 0 ? null : (m.toolUsage[anchor.tool ?? ''] ?? 0), sampleSize: m.sampledTraces };
  }
}

/** Unknown without a value measured over at least `minSample` traces; else whether it is within bounds. */
function statusOf(anchor: Anchor, minSample: number): AnchorStatus {
  const { lastValue: value, lastSampleSize } = anchor;
  if (value === null || lastSampleSize < minSample) return 'unknown';
  const within = (anchor.min === null || value >= anchor.min) && (anchor.max === null || value <= anchor.max);
  return within ? 'passing' : 'failing';
}

/** Records what a cycle measured on each anchor, and its status. */
export function evaluateAnchors(anchors: readonly Anchor[], m: WindowMeasurement, minSample: number, now: Date): Anchor[] {
  return anchors.map((anchor) => {
    const { value, sampleSize } = measured(anchor, m);
    const next = { ...anchor, lastValue: value, lastSampleSize: sampleSize, lastEvaluatedAt: now.toISOString() };
    return { ...next, status: statusOf(next, minSample) };
  });
}

/** New anchors (of an edited profile) judged on what the previous anchors of the same id last measured. */
export function rebaseAnchors(fresh: readonly Anchor[], previous: readonly Anchor[], minSample: number): Anchor[] {
  const byId = new Map(previous.map((a) => [a.id, a]));
  return fresh.map((anchor) => {
    const old = byId.get(anchor.id);
    const next = old ? { ...anchor, lastValue: old.lastValue, lastSampleSize: old.lastSampleSize, lastEvaluatedAt: old.lastEvaluatedAt } : anchor;
    return { ...next, status: statusOf(next, minSample) };
  });
}

/** Spec: more than half of the anchors are failing. */
export const mostAnchorsFailing = (anchors: readonly Anchor[]): boolean =>
  anchors.length > 0 && anchors.filter((a) => a.status === 'failing').length > anchors.length / 2;
