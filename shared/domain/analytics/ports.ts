import type { TraceSummary } from '../spans/summary.ts';
import type { BucketRef, CountRef, DayWindow } from './buckets.ts';
import type { Rollup, TraceCounts } from './rollup.ts';

/** What a bucket holds for a query: the rollup of its scope and, for the tenant-wide scope, each agent's (which may leave out the usage by model). */
export interface BucketRollup {
  overall: Rollup;
  /** Rollups by agent id. */
  byAgent: ReadonlyMap<string, Rollup>;
}

/**
 * Rollup buckets: each finished trace counted once into its tenant's minute, hour and day buckets
 * recomputed from the minutes.
 */
export interface RollupsRepository {
  /** Counts finished traces that started in one minute into the tenant's minute bucket, each trace once. */
  countTraces(tenantId: string, minuteStartMs: number, traces: readonly TraceSummary[], expiresAt: number): Promise<void>;
  /** Notes that an hour (and so its day) must be recomputed. */
  markDirty(tenantId: string, hourStartMs: number, expiresAt: number): Promise<void>;
  /**
   * Takes a deleted agent's traces out of these minute buckets (its part of each), and marks their
   * hours dirty, so that the tenant's totals are recomputed without them.
   */
  forgetAgent(tenantId: string, agentId: string, minuteStarts: readonly number[], expiresAt: number): Promise<void>;
  /** Recomputes up to `limit` dirty hours that have settled (oldest first) and their days; answers how many. */
  compactDirty(limit: number, expiresAtOf: (tenantId: string) => Promise<number>, nowMs: number): Promise<number>;
  /** The tenant's hours whose hour and day buckets are not recomputed yet (their minutes are the truth). */
  dirtyHours(tenantId: string): Promise<number[]>;
  /**
   * The dirty hours as `dirtyHours` reads them, with how many times an hour left them (its hour and
   * day buckets recomputed) so far: a reader that read buckets before this read and finds the count
   * unchanged since an earlier read knows that no bucket it read was recomputed in between.
   */
  dirtyHoursAndRecomputes(tenantId: string): Promise<{ hours: number[]; recomputes: number }>;
  /**
   * How many traces the given buckets and parts of buckets of a scope count (ok, in error, all),
   * without those of the `leaveOut` agents: the parts from their buckets' slot counts (every part in
   * one read), or, in a bucket stored before it had them, from the part's own buckets.
   */
  counts(tenantId: string, scope: string, refs: readonly CountRef[], leaveOut?: ReadonlySet<string>): Promise<TraceCounts>;
  /**
   * Each scope's rollup of its day buckets in the window, from one item per scope (its settled days):
   * the stored one while it is current (same window, and no day bucket in it recomputed since),
   * else recomputed from the day buckets and stored. Exact only while no dirty hour falls in the
   * window: the caller reads the days' hours and minutes then.
   */
  settled(tenantId: string, scopes: readonly string[], window: DayWindow): Promise<Map<string, Rollup>>;
  /** Each scope's counts of each day of the window (in order), from the same items, as current as `settled`'s. */
  settledDayCounts(tenantId: string, scopes: readonly string[], window: DayWindow): Promise<Map<string, readonly TraceCounts[]>>;
  /**
   * The rollups of the given buckets of a scope by `bucketRefKey` (missing buckets are simply absent:
   * nothing happened then); with `byAgent`, a tenant-wide bucket also answers each agent's rollup
   * (of the `agents` only, when named).
   */
  read(
    tenantId: string,
    scope: string,
    refs: readonly BucketRef[],
    options?: { byAgent?: boolean; agents?: ReadonlySet<string> },
  ): Promise<Map<string, BucketRollup>>;
}
