import { BUCKET_MS, bucketStart } from '../analytics/buckets.ts';
import { percent } from './format.ts';
import type { WindowMeasurement } from './measurement.ts';
import type { AgentProfile } from './profile.ts';

/** A change between two consecutive bootstrap profiles that is big enough to keep learning. */
export const MATERIAL_CHANGE = {
  /** Error rate: more than 2 points and more than a quarter of the previous rate. */
  errorRateMargin: 0.02,
  errorRateRelative: 0.25,
  latencyRelative: 0.25,
  costRelative: 0.25,
  volumeRelative: 0.3,
  /** Tools called in at least this share of traces make up the tool set that must not change. */
  toolMinTraceRate: 0.05,
} as const;

/** What makes a steady-state agent's recent behaviour drift from its profile. */
export const DRIFT = {
  /** Error rate: more than 5 points and more than half the profile's rate away from it. */
  errorRateMargin: 0.05,
  errorRateRelative: 0.5,
  /** Volume: more than 3 times, or less than a third of, what the profile expects for the window. */
  volumeFactor: 3,
} as const;

const relativeChange = (a: number, b: number): number => {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 ? 0 : Math.abs(a - b) / scale;
};

const changedBeyond = (a: number | null, b: number | null, relative: number): boolean => (a === null || b === null ? a !== b : relativeChange(a, b) > relative);

const mainTools = (p: AgentProfile) => new Set(p.toolPatterns.distribution.filter((t) => t.traceRate >= MATERIAL_CHANGE.toolMinTraceRate).map((t) => t.tool));

/** How the next bootstrap profile differs materially from the previous one; empty when it does not. */
export function materialChanges(previous: AgentProfile, next: AgentProfile): string[] {
  const m = MATERIAL_CHANGE;
  const changes: string[] = [];
  const before = previous.errorPatterns.rate;
  const after = next.errorPatterns.rate;
  if (Math.abs(after - before) > Math.max(m.errorRateMargin, m.errorRateRelative * before)) {
    changes.push(`error rate ${percent(before)} → ${percent(after)}`);
  }
  const latency = [previous, next].map((p) => p.volumeCharacteristics.typicalLatency.p95Ms);
  if (changedBeyond(latency[0]!, latency[1]!, m.latencyRelative)) changes.push(`p95 latency ${latency[0]} ms → ${latency[1]} ms`);
  const cost = [previous, next].map((p) => p.volumeCharacteristics.costPerTrace);
  if (changedBeyond(cost[0]!, cost[1]!, m.costRelative)) changes.push(`cost per trace $${cost[0]} → $${cost[1]}`);
  const volume = [previous, next].map((p) => p.volumeCharacteristics.dailyAverage);
  if (changedBeyond(volume[0]!, volume[1]!, m.volumeRelative)) changes.push(`daily traces ${volume[0]} → ${volume[1]}`);
  const [toolsBefore, toolsAfter] = [mainTools(previous), mainTools(next)];
  const added = [...toolsAfter].filter((t) => !toolsBefore.has(t));
  const dropped = [...toolsBefore].filter((t) => !toolsAfter.has(t));
  if (added.length > 0) changes.push(`tools now used: ${added.join(', ')}`);
  if (dropped.length > 0) changes.push(`tools no longer used: ${dropped.join(', ')}`);
  return changes;
}

/** Traces the profile expects in [startMs, endMs): its daily average spread by its hour-of-day shares. */
export function expectedTraces(profile: AgentProfile, startMs: number, endMs: number): number {
  const { dailyAverage } = profile.volumeCharacteristics;
  const { volumeByHour } = profile.temporalPatterns;
  let expected = 0;
  for (let hour = bucketStart(startMs, 'hour'); hour < endMs; hour += BUCKET_MS.hour) {
    const overlap = (Math.min(endMs, hour + BUCKET_MS.hour) - Math.max(startMs, hour)) / BUCKET_MS.hour;
    expected += dailyAverage * (volumeByHour[new Date(hour).getUTCHours()] ?? 0) * overlap;
  }
  return expected;
}

/**
 * How a window's behaviour drifts from the profile: tools the profile never saw, a significant change
 * of the error rate, a shift of volume. Rates are only compared over at least `minTraces` traces.
 */
export function detectDrift(profile: AgentProfile, m: WindowMeasurement, minTraces: number): string[] {
  const drift: string[] = [];
  const known = new Set(profile.toolPatterns.distribution.map((t) => t.tool));
  const newTools = Object.keys(m.toolUsage)
    .filter((tool) => !known.has(tool))
    .sort();
  if (newTools.length > 0) drift.push(`new tools: ${newTools.join(', ')}`);
  const { rate } = profile.errorPatterns;
  if (m.errorRate !== null && m.traceCount >= minTraces && Math.abs(m.errorRate - rate) > Math.max(DRIFT.errorRateMargin, DRIFT.errorRateRelative * rate)) {
    drift.push(`error rate ${percent(rate)} → ${percent(m.errorRate)}`);
  }
  const expected = expectedTraces(profile, m.startMs, m.endMs);
  const observed = m.traceCount;
  if (Math.max(expected, observed) >= minTraces && (observed > expected * DRIFT.volumeFactor || observed < expected / DRIFT.volumeFactor)) {
    drift.push(`volume: ${observed} traces where about ${Math.round(expected)} were expected`);
  }
  return drift;
}
