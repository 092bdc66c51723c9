import * as z from 'zod';
import type { Clock } from '../../adapters/clock.ts';
import { dateRangeQuery, rangeChecked } from '../../schemas/common.ts';
import type { Store } from '../../store/index.ts';
import { bucketRefKey } from '../../store/rollups.ts';
import { NotFoundError } from '../errors.ts';
import { BUCKET_MS, bucketStart, bucketsBetween, coveringBuckets, seriesPlan, type BucketRef } from './buckets.ts';
import { ALL_AGENTS } from './ingest.ts';
import { mergeRollups, type Rollup } from './rollup.ts';
import type { AgentRollup, AnalyticsInput } from './views.ts';
import { analyticsWindow } from './window.ts';

export const analyticsQuery = rangeChecked(
  dateRangeQuery.extend({
    agentId: z.string().min(1).max(64).optional(),
    interval: z.string().max(20).optional(),
  }),
);
export type AnalyticsQueryInput = z.infer<typeof analyticsQuery>;

export interface AnalyticsDeps {
  store: Pick<Store, 'rollups' | 'agents'>;
  clock: Clock;
}

/**
 * Hour and day buckets are recomputed from minute buckets by a job that runs every minute; the most
 * recent hours are read from minute buckets, which the ingest worker keeps current.
 */
const FRESH_HOURS = 2;

/** The plan with every hour/day bucket that may still be awaiting its recompute replaced by minutes. */
export function withFreshMinutes(refs: readonly BucketRef[], nowMs: number): BucketRef[] {
  const freshFrom = bucketStart(nowMs, 'hour') - (FRESH_HOURS - 1) * BUCKET_MS.hour;
  return refs.flatMap((ref) => {
    const end = ref.startMs + BUCKET_MS[ref.granularity];
    if (ref.granularity === 'minute' || end <= freshFrom) return [ref];
    const settled = ref.startMs < freshFrom ? coveringBuckets(ref.startMs, freshFrom) : [];
    const minutes = bucketsBetween(Math.max(ref.startMs, freshFrom), end, 'minute').map((startMs) => ({ granularity: 'minute' as const, startMs }));
    return [...settled, ...minutes];
  });
}

async function rollupOver(deps: AnalyticsDeps, tenantId: string, scope: string, startMs: number, endMs: number, nowMs: number): Promise<Rollup> {
  const refs = withFreshMinutes(coveringBuckets(startMs, endMs), nowMs);
  const found = await deps.store.rollups.read(tenantId, scope, refs);
  return mergeRollups([...found.values()]);
}

/**
 * Reads what the analytics views need for a query: the overall rollup, one rollup per series point
 * (when `series`), and one per agent (when `perAgent`), each from the fewest stored buckets.
 */
export async function analyticsInput(
  tenantId: string,
  q: AnalyticsQueryInput,
  need: { series: boolean; perAgent: boolean },
  deps: AnalyticsDeps,
): Promise<AnalyticsInput> {
  const now = deps.clock.now();
  const nowMs = now.getTime();
  const window = analyticsWindow(q, now);
  const agent = q.agentId ? await deps.store.agents.get(tenantId, q.agentId) : undefined;
  if (q.agentId && !agent) throw new NotFoundError('Agent');
  const scope = agent?.id ?? ALL_AGENTS;

  const buckets = new Map<number, Rollup>();
  let overall: Rollup;
  if (need.series) {
    const points = seriesPlan(window.startMs, window.endMs, window.granularity).map((p) => ({ ...p, parts: withFreshMinutes(p.parts, nowMs) }));
    const found = await deps.store.rollups.read(tenantId, scope, points.flatMap((p) => p.parts));
    for (const point of points) {
      const parts = point.parts.map((ref) => found.get(bucketRefKey(ref))).filter((r): r is Rollup => r !== undefined);
      if (parts.length > 0) buckets.set(point.startMs, mergeRollups(parts));
    }
    overall = mergeRollups([...buckets.values()]);
  } else {
    overall = await rollupOver(deps, tenantId, scope, window.startMs, window.endMs, nowMs);
  }

  let agents: AgentRollup[] = [];
  if (need.perAgent) {
    const candidates = agent ? [agent] : await deps.store.agents.list(tenantId);
    agents = await Promise.all(
      candidates.map(async (a) => ({ agentId: a.id, agentName: a.name, rollup: await rollupOver(deps, tenantId, a.id, window.startMs, window.endMs, nowMs) })),
    );
  }
  return { window, overall, buckets, agents };
}

/** One agent's rollup over its data's whole retention, for the agent's own metrics. */
export function agentRollup(deps: AnalyticsDeps, tenantId: string, agentId: string, retentionDays: number): Promise<Rollup> {
  const nowMs = deps.clock.now().getTime();
  return rollupOver(deps, tenantId, agentId, nowMs - retentionDays * BUCKET_MS.day, nowMs, nowMs);
}
