import type { AnalyticsQueryInput } from '../../schemas/analytics.ts';
import { NotFoundError } from '../errors.ts';
import { PLANS } from '../plans/plans.ts';
import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';
import {
  BUCKET_MS,
  type BucketRef,
  bucketRefKey,
  bucketStart,
  bucketsBetween,
  type CountRef,
  coveringBuckets,
  type DayWindow,
  isSlice,
  seriesPlan,
  settledWindow,
} from './buckets.ts';
import { ALL_AGENTS, addCounts, emptyRollup, mergeByAgent, mergeRollups, NO_TRACES, type Rollup, type TraceCounts } from './rollup.ts';
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

/** The tenant's plan's retention in days (a missing tenant's: the trial's). */
export async function retentionDaysOf(store: Pick<Store, 'tenants'>, tenantId: string): Promise<number> {
  const tenant = await store.tenants.get(tenantId);
  return PLANS[tenant?.subscription.plan ?? 'trial'].features.retention;
}

const meetsDirtyHour = (window: DayWindow, dirtyHours: readonly number[]) => dirtyHours.some((h) => h >= window.fromMs && h < window.toMs);

/**
 * These agents' rollups over the plan's retention (its calendar days, today's included): the whole
 * past days from each agent's settled item (one item per agent, read together), today from the
 * tenant-wide buckets' breakdown (decoding only these agents). While a past hour is not recomputed
 * yet, every day is read from the tenant-wide buckets instead. `knownDirtyHours` when the caller has read them.
 */
export async function agentRollups(
  deps: AnalyticsDeps,
  tenantId: string,
  retentionDays: number,
  agentIds: readonly string[],
  knownDirtyHours?: readonly number[],
): Promise<Map<string, Rollup>> {
  const nowMs = deps.clock.now().getTime();
  const window = settledWindow(nowMs, retentionDays);
  const dirtyHours = knownDirtyHours ?? (await deps.store.rollups.dirtyHours(tenantId));
  const settled = !meetsDirtyHour(window, dirtyHours);
  const refs = withDirtyHoursAsMinutes(coveringBuckets(settled ? window.toMs : window.fromMs, nowMs), dirtyHours);
  const [found, past] = await Promise.all([
    deps.store.rollups.read(tenantId, ALL_AGENTS, refs, { byAgent: true, agents: new Set(agentIds) }),
    settled ? deps.store.rollups.settled(tenantId, agentIds, window) : new Map<string, Rollup>(),
  ]);
  return mergeByAgent([past, ...[...found.values()].map((b) => b.byAgent)]);
}

/**
 * These agents' rollups over [startMs, endMs) (whole minutes, from the tenant-wide buckets' breakdown,
 * decoding only these agents): one read of the range's day, hour and minute buckets for the whole
 * page, bounded by the range, not the history. Hours not recomputed since their minutes changed (the
 * current one among them, and a late trace's) are read as their minutes, as the metrics over the
 * retention read them, and the others as their hours: a late trace counts at once, and the hours just
 * past are read whole once compacted (reading the last two hours as minutes, as the analytics views
 * do, read 120 minute buckets a page).
 */
export async function agentRollupsBetween(
  deps: AnalyticsDeps,
  tenantId: string,
  range: { startMs: number; endMs: number },
  agentIds: readonly string[],
  dirtyHours: readonly number[],
): Promise<Map<string, Rollup>> {
  const refs = withDirtyHoursAsMinutes(coveringBuckets(range.startMs, range.endMs), dirtyHours);
  const found = await deps.store.rollups.read(tenantId, ALL_AGENTS, refs, { byAgent: true, agents: new Set(agentIds) });
  return mergeByAgent([...found.values()].map((b) => b.byAgent));
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
 * What to read to count [startMs, endMs) (whole minutes): whole days and hours as their buckets, a
 * ragged run of minutes within an hour or of hours within a day as a slice of that hour's or day's
 * slot counts (one item where the minutes or hours took up to 59 or 23), and every dirty hour (not
 * recomputed since its minutes changed: the current one among them) as its minutes.
 */
export function countingPlan(startMs: number, endMs: number, dirtyHours: readonly number[]): CountRef[] {
  const dirty = new Set(dirtyHours);
  const plan: CountRef[] = [];
  /** Adds the sub-bucket [fromMs, toMs) of the hour or day bucket at `bucketMs`, extending the slice before it when adjacent. */
  const addSlice = (granularity: 'hour' | 'day', bucketMs: number, fromMs: number, toMs: number) => {
    const last = plan.at(-1);
    if (last && isSlice(last) && last.granularity === granularity && last.startMs === bucketMs && last.toMs === fromMs) last.toMs = toMs;
    else plan.push({ granularity, startMs: bucketMs, fromMs, toMs });
  };
  const addHour = (hourMs: number, fromMs: number, toMs: number) => {
    if (!dirty.has(hourMs)) return addSlice('hour', hourMs, fromMs, toMs);
    for (const minuteMs of bucketsBetween(fromMs, toMs, 'minute')) plan.push({ granularity: 'minute', startMs: minuteMs });
  };
  for (const ref of coveringBuckets(startMs, endMs)) {
    const end = ref.startMs + BUCKET_MS[ref.granularity];
    if (ref.granularity === 'minute') addHour(bucketStart(ref.startMs, 'hour'), ref.startMs, end);
    else if (ref.granularity === 'day' && !dirtyHours.some((h) => h >= ref.startMs && h < end)) plan.push(ref);
    else
      for (const hourMs of bucketsBetween(ref.startMs, end, 'hour')) {
        if (dirty.has(hourMs)) addHour(hourMs, hourMs, hourMs + BUCKET_MS.hour);
        else addSlice('day', bucketStart(hourMs, 'day'), hourMs, hourMs + BUCKET_MS.hour);
      }
  }
  return plan;
}

/**
 * The plan's whole days in the settled window (`days`) and the rest of the plan, when the window
 * meets no dirty hour and the plan has at least two whole days in it (else one item saves nothing).
 */
function settledSplit(plan: readonly CountRef[], window: DayWindow, dirtyHours: readonly number[]) {
  if (meetsDirtyHour(window, dirtyHours)) return undefined;
  const inWindow = (ref: CountRef) => ref.granularity === 'day' && !isSlice(ref) && ref.startMs >= window.fromMs && ref.startMs < window.toMs;
  const days = plan.filter(inWindow);
  return days.length < 2 ? undefined : { days, rest: plan.filter((ref) => !inWindow(ref)) };
}

/** The counts of these days of the window from the scope's settled item, less the leaveOut agents' (from theirs: one read). */
async function windowDayCounts(
  rollups: Store['rollups'],
  tenantId: string,
  scope: string,
  window: DayWindow,
  days: readonly CountRef[],
  leaveOut: ReadonlySet<string>,
): Promise<TraceCounts> {
  const settled = await rollups.settledDayCounts(tenantId, [scope, ...(scope === ALL_AGENTS ? leaveOut : [])], window);
  const ofDays = (scopeOf: string) => {
    const dayCounts = settled.get(scopeOf) ?? [];
    return days.reduce((sum, day) => addCounts(sum, dayCounts[(day.startMs - window.fromMs) / BUCKET_MS.day] ?? NO_TRACES), NO_TRACES);
  };
  return [...leaveOut].reduce((total, agent) => addCounts(total, ofDays(agent), -1), ofDays(scope));
}

/**
 * How many finished traces started in [startMs, endMs) (whole minutes) in a scope, of one status or
 * all, without those of `leaveOut` agents (tenant-wide scope only): the rollups count every finished
 * trace once, so this is exact and reads the range's buckets (their counts only), whatever the traces
 * number: its ragged hours and minutes as slices of one day and one hour bucket per end (see
 * countingPlan); an hour not recomputed yet (the tenant's dirty hours: from an hour's first minute
 * bucket until its recompute, and again after any later write) is read from its minutes. Given the
 * `settled` window (the plan's whole past days), the range's days in it come from the scope's settled
 * item's per-day counts, one item rather than a bucket per day. `dirtyHours` when the caller has read them already.
 */
export async function finishedTraceCount(
  deps: { store: Pick<Store, 'rollups'> },
  tenantId: string,
  scope: string,
  range: { startMs: number; endMs: number; status?: 'ok' | 'error'; leaveOut: readonly string[]; settled?: DayWindow; dirtyHours?: readonly number[] },
): Promise<number> {
  const { rollups } = deps.store;
  const leaveOut = new Set(range.leaveOut);
  const dirtyHours = range.dirtyHours ?? (await rollups.dirtyHours(tenantId));
  const plan = countingPlan(range.startMs, range.endMs, dirtyHours);
  const split = range.settled && settledSplit(plan, range.settled, dirtyHours);
  let counts: TraceCounts;
  if (!split) {
    counts = await rollups.counts(tenantId, scope, plan, leaveOut);
  } else {
    const [rest, days] = await Promise.all([
      rollups.counts(tenantId, scope, split.rest, leaveOut),
      windowDayCounts(rollups, tenantId, scope, range.settled!, split.days, leaveOut),
    ]);
    counts = addCounts(rest, days);
  }
  return range.status === 'ok' ? counts.successCount : range.status === 'error' ? counts.errorCount : counts.requestCount;
}
