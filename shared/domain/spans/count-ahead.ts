import { BUCKET_MS, bucketStart, type DayWindow } from '../analytics/buckets.ts';
import { finishedTraceCount } from '../analytics/queries.ts';
import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';
import type { TraceQuery } from './ports.ts';

/** What a trace total reads of the rollups (see `finishedTraceCount`): a scope and whole minutes, and what decides the buckets read. */
export interface CountPlan {
  scope: string;
  startMs: number;
  endMs: number;
  status?: 'ok' | 'error';
  leaveOut: readonly string[];
  settled: DayWindow;
  dirtyHours: readonly number[];
  /** How many hours had left the dirty hours when they were read (see `RollupsRepository.dirtyHoursAndRecomputes`). */
  recomputes: number;
  /** The range ends with the minute the list was asked in (a first page open at its end): asked again, with that minute's end. */
  toThisMinute: boolean;
}

export interface CountAhead {
  plan: CountPlan;
  count: Promise<number>;
}

type Deps = { store: Pick<Store, 'rollups'>; clock: Clock };

/** Queries whose plans this process remembers, the least lately asked forgotten first (a plan holds a tenant's dirty hours and agents deleted lately: a few KB at most). */
const REMEMBERED = 1_000;
const remembered = new Map<string, CountPlan>();

/** A list's plans by tenant, query and whether the range ends with this minute (a first page's) or with the newest finished trace. */
const keyOf = (tenantId: string, q: TraceQuery, toThisMinute: boolean) =>
  JSON.stringify([tenantId, q.agentId ?? null, q.status ?? null, q.startMs ?? null, q.endMs ?? null, toThisMinute]);

export const countByPlan = (deps: Pick<Deps, 'store'>, tenantId: string, plan: CountPlan): Promise<number> =>
  finishedTraceCount(deps, tenantId, plan.scope, {
    startMs: plan.startMs,
    endMs: plan.endMs,
    ...(plan.status ? { status: plan.status } : {}),
    leaveOut: plan.leaveOut,
    settled: plan.settled,
    dirtyHours: plan.dirtyHours,
  });

/**
 * The count of the plan this process last made for the same tenant and query, started now. A total
 * is counted from the rollups only once the reads that decide which buckets to read (the plan's
 * retention, where a range open at its start begins; the hours not recomputed yet; the deleted
 * agents) have answered: a round of reads after another. A list asked again (a refresh, a
 * dashboard's next poll) mostly decides the same buckets, so their reads start with those reads and
 * are kept when the plan decided then is the same (`samePlan`), else they are read again. The same plan read earlier counts
 * what the later read would: the buckets of dirty hours are read whole whenever they are read, and
 * the others change only when the compaction recomputes them, which it counts (`recomputes`) as it
 * takes their hour out of the dirty hours, before the plan's own read of them.
 * Measured on the local service with a tenant of 1,000 traces, first pages with and without it
 * alternated in one process (three runs of 600 each): mean 18.1–22.5 against 19.9–25.1 ms, p95
 * 25.9–32.3 against 30.3–38.9 ms.
 */
export function countAhead(deps: Deps, tenantId: string, q: TraceQuery, toThisMinute: boolean): CountAhead | undefined {
  const last = remembered.get(keyOf(tenantId, q, toThisMinute));
  if (!last) return undefined;
  const plan = last.toThisMinute ? { ...last, endMs: bucketStart(deps.clock.now().getTime(), 'minute') + BUCKET_MS.minute } : last;
  const count = countByPlan(deps, tenantId, plan);
  count.catch(() => undefined); // awaited only when the plan holds
  return { plan, count };
}

export function rememberPlan(tenantId: string, q: TraceQuery, plan: CountPlan): void {
  const key = keyOf(tenantId, q, plan.toThisMinute);
  remembered.delete(key);
  remembered.set(key, plan);
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
}

const sameSet = (a: readonly (string | number)[], b: readonly (string | number)[]) => {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((x) => set.has(x));
};

/** Whether two plans read the same buckets for the same count. */
export const samePlan = (a: CountPlan, b: CountPlan): boolean =>
  a.scope === b.scope &&
  a.startMs === b.startMs &&
  a.endMs === b.endMs &&
  a.status === b.status &&
  a.recomputes === b.recomputes &&
  a.settled.fromMs === b.settled.fromMs &&
  a.settled.toMs === b.settled.toMs &&
  sameSet(a.leaveOut, b.leaveOut) &&
  sameSet(a.dirtyHours, b.dirtyHours);
