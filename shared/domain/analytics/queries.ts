import type { AnalyticsQueryInput } from '../../schemas/analytics.ts';
import { NotFoundError } from '../errors.ts';
import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';
import { BUCKET_MS, type BucketRef, bucketRefKey, bucketStart, bucketsBetween, coveringBuckets, seriesPlan } from './buckets.ts';
import { ALL_AGENTS, emptyRollup, mergeByAgent, mergeRollups, type Rollup } from './rollup.ts';
import type { AgentRollup, AnalyticsInput } from './views.ts';
import { analyticsWindow } from './window.ts';

export interface AnalyticsDeps {
  store: Pick<Store, 'rollups' | 'agents'>;
  clock: Clock;
}

/**
 * Hour and day buckets are recomputed from minute buckets by a job that runs every minute, once an
 * hour has been over for a few minutes (SETTLE_MS in store/rollups.ts); the current and the previous
 * hour are read from minute buckets, which the ingest worker keeps current.
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

/**
 * The buckets covering [startMs, endMs), with the hours not recomputed yet (the tenant's dirty hours:
 * from an hour's first minute bucket until its recompute, and again after any later write) as their
 * minutes. Exact, and cheaper than reading the last FRESH_HOURS as minutes too: a settled hour is
 * one bucket, not sixty.
 */
async function currentBuckets(deps: { store: Pick<Store, 'rollups'> }, tenantId: string, startMs: number, endMs: number): Promise<BucketRef[]> {
  return withDirtyHoursAsMinutes(coveringBuckets(startMs, endMs), await deps.store.rollups.dirtyHours(tenantId));
}

async function rollupOver(deps: AnalyticsDeps, tenantId: string, scope: string, startMs: number, endMs: number): Promise<Rollup> {
  const found = await deps.store.rollups.read(tenantId, scope, await currentBuckets(deps, tenantId, startMs, endMs));
  return mergeRollups([...found.values()].map((b) => b.overall));
}

/**
 * Reads what the analytics views need for a query: the overall rollup, one rollup per series point
 * (when `series`), and one per agent (when `perAgent`), from the fewest stored buckets of one scope:
 * the tenant-wide buckets hold each agent's rollup too, and narrowed to one agent the breakdown is
 * that agent's overall rollup.
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
  const byAgent = need.perAgent && !agent;

  const points = need.series
    ? seriesPlan(window.startMs, window.endMs, window.granularity).map((p) => ({ ...p, parts: withFreshMinutes(p.parts, nowMs) }))
    : [];
  const refs = need.series ? points.flatMap((p) => p.parts) : withFreshMinutes(coveringBuckets(window.startMs, window.endMs), nowMs);
  const [found, candidates] = await Promise.all([
    deps.store.rollups.read(tenantId, scope, refs, { byAgent }),
    byAgent ? deps.store.agents.list(tenantId) : Promise.resolve([]),
  ]);

  const buckets = new Map<number, Rollup>();
  for (const point of points) {
    const parts = point.parts.map((ref) => found.get(bucketRefKey(ref))?.overall).filter((r): r is Rollup => r !== undefined);
    if (parts.length > 0) buckets.set(point.startMs, mergeRollups(parts));
  }
  const overall = mergeRollups([...found.values()].map((b) => b.overall));

  let agents: AgentRollup[] = [];
  if (agent && need.perAgent) agents = [{ agentId: agent.id, agentName: agent.name, rollup: overall }];
  if (byAgent) {
    const breakdown = mergeByAgent([...found.values()].map((b) => b.byAgent));
    agents = candidates.map((a) => ({ agentId: a.id, agentName: a.name, rollup: breakdown.get(a.id) ?? emptyRollup() }));
  }
  return { window, overall, buckets, agents };
}

/** These agents' rollups over the data's whole retention, from the breakdown the tenant-wide buckets hold. */
export async function agentRollups(deps: AnalyticsDeps, tenantId: string, retentionDays: number, agentIds: readonly string[]): Promise<Map<string, Rollup>> {
  const nowMs = deps.clock.now().getTime();
  const refs = await currentBuckets(deps, tenantId, nowMs - retentionDays * BUCKET_MS.day, nowMs);
  const found = await deps.store.rollups.read(tenantId, ALL_AGENTS, refs, { byAgent: true, agents: new Set(agentIds) });
  return mergeByAgent([...found.values()].map((b) => b.byAgent));
}

/** One agent's rollup over its data's whole retention, for the agent's own metrics. */
export function agentRollup(deps: AnalyticsDeps, tenantId: string, agentId: string, retentionDays: number): Promise<Rollup> {
  const nowMs = deps.clock.now().getTime();
  return rollupOver(deps, tenantId, agentId, nowMs - retentionDays * BUCKET_MS.day, nowMs);
}

/**
 * The plan with every hour or day bucket that meets a dirty hour (one whose minutes changed since it
 * was last recomputed: late data, or a compaction not run yet) replaced by its clean hours and the
 * dirty hours' minutes.
 */
export function withDirtyHoursAsMinutes(refs: readonly BucketRef[], dirtyHours: readonly number[]): BucketRef[] {
  const dirty = new Set(dirtyHours);
  const meets = (ref: BucketRef) => ref.granularity !== 'minute' && dirtyHours.some((h) => h >= ref.startMs && h < ref.startMs + BUCKET_MS[ref.granularity]);
  return refs.flatMap((ref): BucketRef[] => {
    if (!meets(ref)) return [ref];
    const hours = ref.granularity === 'day' ? bucketsBetween(ref.startMs, ref.startMs + BUCKET_MS.day, 'hour') : [ref.startMs];
    return hours.flatMap((h): BucketRef[] =>
      dirty.has(h)
        ? bucketsBetween(h, h + BUCKET_MS.hour, 'minute').map((startMs) => ({ granularity: 'minute', startMs }))
        : [{ granularity: 'hour', startMs: h }],
    );
  });
}

/**
 * How many finished traces started in [startMs, endMs) (whole minutes) in a scope, of one status or
 * all, without those of `leaveOut` agents (tenant-wide scope only): the rollups count every finished
 * trace once, so this is exact and reads the range's buckets (their counts only), whatever the traces
 * number; an hour not recomputed yet is read from its minutes (see `currentBuckets`).
 */
export async function finishedTraceCount(
  deps: { store: Pick<Store, 'rollups'> },
  tenantId: string,
  scope: string,
  range: { startMs: number; endMs: number; status?: 'ok' | 'error'; leaveOut: readonly string[] },
): Promise<number> {
  const counts = await deps.store.rollups.counts(tenantId, scope, await currentBuckets(deps, tenantId, range.startMs, range.endMs), new Set(range.leaveOut));
  return range.status === 'ok' ? counts.successCount : range.status === 'error' ? counts.errorCount : counts.requestCount;
}
