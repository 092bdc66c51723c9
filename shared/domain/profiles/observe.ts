/**
 * Reads what learning needs, never more than a window's rollups and a bounded sample of traces: the
 * rollups answer counts, errors, latency and cost exactly; the sample's spans show tools and errors.
 */

import { BUCKET_MS, bucketStart } from '../analytics/buckets.ts';
import { analyticsInput } from '../analytics/queries.ts';
import type { Clock } from '../ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import { measureWindow, type WindowMeasurement } from './measurement.ts';
import { type LearningEvidence, type SampledTrace, sampleTrace } from './statistics.ts';

export interface ObserveDeps {
  store: Pick<Store, 'rollups' | 'agents' | 'traces'>;
  clock: Clock;
}

const SPAN_READS_IN_PARALLEL = 8;
const NO_SERIES = { series: false, perAgent: false };

async function sampleOf(tenantId: string, summaries: readonly TraceSummary[], deps: ObserveDeps): Promise<SampledTrace[]> {
  const finished = summaries.filter((s) => s.complete);
  const sampled: SampledTrace[] = [];
  for (let i = 0; i < finished.length; i += SPAN_READS_IN_PARALLEL) {
    const batch = finished.slice(i, i + SPAN_READS_IN_PARALLEL);
    const spans = await Promise.all(batch.map((s) => deps.store.traces.spansOf(tenantId, s.traceId)));
    sampled.push(...batch.map((summary, j) => sampleTrace(summary, spans[j]!)));
  }
  return sampled;
}

/** How many sampled traces each day gives: in proportion to its traces, at least one per day with traffic. */
export function sampleAllocation(tracesByDay: ReadonlyMap<number, number>, size: number): Map<number, number> {
  const total = [...tracesByDay.values()].reduce((a, b) => a + b, 0);
  return new Map([...tracesByDay].filter(([, n]) => n > 0).map(([day, n]) => [day, Math.max(1, Math.round((size * n) / total))]));
}

/** Finished traces of the agent from `startMs` until now. */
export async function countTracesSince(tenantId: string, agentId: string, startMs: number, deps: ObserveDeps): Promise<number> {
  const { overall } = await analyticsInput(tenantId, { agentId, startDate: new Date(startMs) }, NO_SERIES, deps);
  return overall.requestCount;
}

/** The learning window from `startMs` until now: hour rollups, and a sample spread over its days like its traffic. */
export async function learningEvidence(tenantId: string, agentId: string, startMs: number, sampleSize: number, deps: ObserveDeps): Promise<LearningEvidence> {
  const { window, overall, buckets } = await analyticsInput(
    tenantId,
    { agentId, startDate: new Date(startMs), interval: 'hour' },
    { series: true, perAgent: false },
    deps,
  );
  const tracesByDay = new Map<number, number>();
  for (const [hour, rollup] of buckets) tracesByDay.set(bucketStart(hour, 'day'), (tracesByDay.get(bucketStart(hour, 'day')) ?? 0) + rollup.requestCount);
  const pages = await Promise.all(
    [...sampleAllocation(tracesByDay, sampleSize)].map(([day, n]) =>
      deps.store.traces.newestOfAgent(tenantId, agentId, Math.max(day, window.startMs), Math.min(day + BUCKET_MS.day, window.endMs), n),
    ),
  );
  return { startMs: window.startMs, endMs: window.endMs, overall, hourly: buckets, sample: await sampleOf(tenantId, pages.flat(), deps) };
}

/** What happened in a window, for the anchors and drift: its rollup and its newest traces. */
export async function measureWindowOf(
  tenantId: string,
  agentId: string,
  { startMs, endMs }: { startMs: number; endMs: number },
  sampleSize: number,
  deps: ObserveDeps,
): Promise<WindowMeasurement> {
  const { window, overall } = await analyticsInput(tenantId, { agentId, startDate: new Date(startMs), endDate: new Date(endMs) }, NO_SERIES, deps);
  const newest = await deps.store.traces.newestOfAgent(tenantId, agentId, window.startMs, window.endMs, sampleSize);
  return measureWindow(window.startMs, window.endMs, overall, await sampleOf(tenantId, newest, deps));
}

/** The measurement of a whole learning window, for the anchors of a first profile. */
export const measureEvidence = (e: LearningEvidence): WindowMeasurement => measureWindow(e.startMs, e.endMs, e.overall, e.sample);
