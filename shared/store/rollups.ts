import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  BUCKET_MS,
  type BucketRef,
  type BucketSlice,
  bucketRefKey,
  bucketStart,
  bucketsBetween,
  type CountRef,
  type DayWindow,
  type Granularity,
  isSlice,
  SLOT_GRANULARITY,
} from '../domain/analytics/buckets.ts';
import type { BucketRollup, RollupsRepository } from '../domain/analytics/ports.ts';
import {
  ALL_AGENTS,
  addCounts,
  countsOf,
  decodeRollup,
  decodeRollupCounts,
  decodeSlotCounts,
  emptyRollup,
  encodeRollup,
  encodeSlotCounts,
  groupBy,
  mergeByAgent,
  mergeRollups,
  NO_TRACES,
  type Rollup,
  rollupOf,
  type TraceCounts,
  withoutModels,
} from '../domain/analytics/rollup.ts';
import { backoff } from '../domain/retry.ts';
import type { TraceSummary } from '../domain/spans/summary.ts';
import { batchGet, queryAll } from './batch.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { NO_AGENT, rollupDirtyBefore, rollupSortKey } from './keys.ts';
import { inGatheredTurn } from './turns.ts';

const MAX_ATTEMPTS = 12;
/** A counted trace is remembered in its minute bucket as the first 8 bytes of the SHA-256 of its id. */
const TRACE_KEY_BYTES = 8;
/**
 * How long after its end an hour is left alone by the compaction. Writes to the minutes of the
 * current hour mark nothing (see countTraces), so the hour is recomputed only once no such write can
 * still be on its way; the queries read an hour from its minutes until an hour after it ended
 * (FRESH_HOURS in domain/analytics/queries.ts), which leaves the compaction the rest of that hour.
 */
const SETTLE_MS = 5 * 60_000;
/** Up to this many agents, a read of buckets projects their entries of the by-agent map rather than the whole map. */
const PROJECTED_AGENTS = 100;

/** What a settled item holds: the sum of the window's day buckets, and each day's counts. */
interface SettledDays {
  rollup: Rollup;
  dayCounts: readonly TraceCounts[];
}
type SettledPart = keyof SettledDays;

/** Rollups by agent id (NO_AGENT for the traces without one). */
type ByAgent = ReadonlyMap<string, Rollup>;
type Item = Record<string, unknown>;

export const traceKey = (traceId: string): Uint8Array => createHash('sha256').update(traceId).digest().subarray(0, TRACE_KEY_BYTES);

function traceKeysOf(encoded: Uint8Array): string[] {
  const found: string[] = [];
  for (let at = 0; at < encoded.length; at += TRACE_KEY_BYTES) found.push(Buffer.from(encoded.subarray(at, at + TRACE_KEY_BYTES)).toString('hex'));
  return found;
}

const agentsOnly = (parts: ByAgent) => new Map([...parts].filter(([agent]) => agent !== NO_AGENT));

/** Each agent's rollup of the traces (NO_AGENT: of those naming none). */
export const minuteParts = (traces: readonly TraceSummary[]): Map<string, Rollup> =>
  new Map([...groupBy(traces, (t) => t.agentId ?? NO_AGENT)].map(([agent, group]) => [agent, rollupOf(group)]));

const encodeByAgent = (rollups: ByAgent) => Object.fromEntries([...rollups].map(([agent, r]) => [agent, encodeRollup(r)]));
/** Each agent's rollup (only those of `only`, when given: decoding is most of a read's time). */
const decodeByAgent = (encoded: unknown, only?: ReadonlySet<string>) =>
  new Map(
    Object.entries((encoded ?? {}) as Record<string, Uint8Array>)
      .filter(([agent]) => !only || only.has(agent))
      .map(([agent, bytes]) => [agent, decodeRollup(bytes)]),
  );

/** The refs as runs of adjacent buckets of one granularity: one query each. */
function runsOf(refs: readonly BucketRef[]): BucketRef[][] {
  const runs: BucketRef[][] = [];
  for (const ref of [...refs].sort((a, b) => a.granularity.localeCompare(b.granularity) || a.startMs - b.startMs)) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && last.granularity === ref.granularity && last.startMs + BUCKET_MS[last.granularity] === ref.startMs) run.push(ref);
    else runs.push([ref]);
  }
  return runs;
}
const runEnd = (run: readonly BucketRef[]) => run.at(-1)!.startMs + BUCKET_MS[run[0]!.granularity];

/** The counts of each slot (minute of an hour, hour of a day) of the bucket at `startMs`, from the slots' counts by start (a quiet slot has none). */
export function slotsOf(granularity: 'hour' | 'day', startMs: number, bySlot: ReadonlyMap<number, TraceCounts>): TraceCounts[] {
  return bucketsBetween(startMs, startMs + BUCKET_MS[granularity], SLOT_GRANULARITY[granularity]).map((slotMs) => bySlot.get(slotMs) ?? NO_TRACES);
}

/** The counts of the slice's slots, of the slots a bucket stores. */
function sliceOf(slots: readonly TraceCounts[], slice: BucketSlice): TraceCounts {
  const slotMs = BUCKET_MS[SLOT_GRANULARITY[slice.granularity]];
  return slots.slice((slice.fromMs - slice.startMs) / slotMs, (slice.toMs - slice.startMs) / slotMs).reduce((sum, slot) => addCounts(sum, slot), NO_TRACES);
}

/** The buckets a slice covers (what it is counted from when its bucket has no slot counts). */
const slotRefs = (slice: BucketSlice): BucketRef[] =>
  bucketsBetween(slice.fromMs, slice.toMs, SLOT_GRANULARITY[slice.granularity]).map((startMs) => ({
    granularity: SLOT_GRANULARITY[slice.granularity],
    startMs,
  }));

/** The items the repository writes, as it writes them (the analytics bench bulk-writes the same). */
export const rollupItems = {
  /**
   * A tenant's minute bucket, the only one: each agent's rollup of the traces that started in the
   * minute (`parts`), the keys of those traces (`traces`), so that none is counted twice, and their
   * counts (`counts`, as one slot: what a tenant-wide total reads of the minute).
   */
  minute: (tenantId: string, startMs: number, parts: ByAgent, traces: Uint8Array, version: number, expiresAt: number): Item => ({
    ...keys.rollup(tenantId, ALL_AGENTS, 'minute', startMs),
    entity: 'rollup',
    granularity: 'minute',
    startMs,
    parts: encodeByAgent(parts),
    counts: encodeSlotCounts([[...parts.values()].reduce<TraceCounts>((sum, r) => addCounts(sum, r), NO_TRACES)]),
    traces,
    version,
    expiresAt,
  }),
  /**
   * An hour or day bucket of a scope: its rollup, the counts of each of its minutes or hours (`slots`:
   * a part of the bucket is counted from them), and in the tenant-wide one each agent's rollup without
   * its models (the per-agent breakdown).
   */
  coarse: (
    tenantId: string,
    scope: string,
    granularity: 'hour' | 'day',
    startMs: number,
    overall: Rollup,
    slots: readonly TraceCounts[],
    byAgent: ByAgent,
    expiresAt: number,
  ): Item => ({
    ...keys.rollup(tenantId, scope, granularity, startMs),
    entity: 'rollup',
    granularity,
    startMs,
    rollup: encodeRollup(overall),
    slots: encodeSlotCounts(slots),
    ...(scope === ALL_AGENTS ? { agents: encodeByAgent(new Map([...agentsOnly(byAgent)].map(([agent, r]) => [agent, withoutModels(r)]))) } : {}),
    expiresAt,
  }),
};

/**
 * Rollup buckets. A tenant's minute buckets are the source of truth: one item per minute holds the
 * rollup of every agent's traces that started in it, and the keys of those traces, so a trace is
 * counted once however often it is sent or its message processed (checked and written in one
 * versioned put). Hour and day buckets, per agent and tenant-wide, are recomputed from the minutes
 * (put, never added to), so recomputing twice is harmless.
 *
 * `now` is the writers' clock: writes to the minutes of the current hour mark nothing beyond the
 * minute's creation, and the compaction waits until the hour has settled (SETTLE_MS).
 */
export function rollupsRepository(db: Db, now: () => number = Date.now): RollupsRepository {
  const { doc, tableName: TableName } = db;

  const put = (Item: Item) => doc.send(new PutCommand({ TableName, Item }));

  /**
   * A map of rollups by agent, or only some agents' entries of it: a tenant-wide bucket holds every
   * busy agent's rollup (200 in the reads bench), and a page of the agents list wants 50 of them.
   */
  const entriesOf = (map: string, only: ReadonlySet<string> | undefined): Array<string | string[]> =>
    only && only.size <= PROJECTED_AGENTS ? [...only].map((agent) => [map, agent]) : [map];

  /** The buckets' attributes, each a name or a path into a map (an agent's entry: `['agents', agentId]`). */
  async function query(
    tenantId: string,
    scope: string,
    g: Granularity,
    fromMs: number,
    toMs: number,
    attributes: ReadonlyArray<string | readonly string[]>,
    consistent = false,
  ) {
    const names = new Map<string, string>();
    const placeholder = (name: string) => {
      if (!names.has(name)) names.set(name, `#a${names.size}`);
      return names.get(name)!;
    };
    const projection = attributes.map((path) => (typeof path === 'string' ? [path] : path).map(placeholder).join('.')).join(', ');
    if (fromMs >= toMs) return []; // an empty range (DynamoDB refuses a BETWEEN whose bounds are reversed)
    return queryAll(db, {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lower AND :upper',
      ProjectionExpression: projection,
      ExpressionAttributeNames: Object.fromEntries([...names].map(([name, p]) => [p, name])),
      ExpressionAttributeValues: {
        ':pk': keys.rollupPartition(tenantId, scope),
        ':lower': rollupSortKey(g, fromMs),
        ':upper': rollupSortKey(g, toMs - 1),
      },
      ...(consistent ? { ConsistentRead: true } : {}),
    });
  }

  /** Each agent's rollups of the minutes in [fromMs, toMs) (only those of `only`, when given), by minute start; `consistent`: a strongly consistent read. */
  async function minutes(tenantId: string, fromMs: number, toMs: number, only?: ReadonlySet<string>, consistent = false): Promise<Map<number, ByAgent>> {
    const items = await query(tenantId, ALL_AGENTS, 'minute', fromMs, toMs, ['startMs', ...entriesOf('parts', only)], consistent);
    return new Map(items.map((i) => [Number(i['startMs']), decodeByAgent(i['parts'], only)]));
  }

  /** The hour or day buckets of a scope in [fromMs, toMs), by start; `byAgent` only when asked for (tenant-wide ones), of `agents` when given; `consistent`: a strongly consistent read. */
  async function coarse(
    tenantId: string,
    scope: string,
    g: 'hour' | 'day',
    fromMs: number,
    toMs: number,
    byAgent: boolean,
    agents?: ReadonlySet<string>,
    consistent = false,
  ): Promise<Map<number, BucketRollup>> {
    const items = await query(tenantId, scope, g, fromMs, toMs, ['startMs', 'rollup', ...(byAgent ? entriesOf('agents', agents) : [])], consistent);
    return new Map(items.map((i) => [Number(i['startMs']), { overall: decodeRollup(i['rollup'] as Uint8Array), byAgent: decodeByAgent(i['agents'], agents) }]));
  }

  /** The buckets of one scope in [fromMs, toMs) of one granularity, by start. */
  async function range(
    tenantId: string,
    scope: string,
    g: Granularity,
    fromMs: number,
    toMs: number,
    byAgent: boolean,
    agents?: ReadonlySet<string>,
  ): Promise<Map<number, BucketRollup>> {
    if (g !== 'minute') return coarse(tenantId, scope, g, fromMs, toMs, byAgent, agents);
    const out = new Map<number, BucketRollup>();
    if (scope !== ALL_AGENTS) {
      for (const [startMs, parts] of await minutes(tenantId, fromMs, toMs, new Set([scope])))
        if (parts.has(scope)) out.set(startMs, { overall: parts.get(scope)!, byAgent: new Map() });
      return out;
    }
    for (const [startMs, parts] of await minutes(tenantId, fromMs, toMs)) {
      out.set(startMs, {
        overall: mergeRollups([...parts.values()]),
        byAgent: byAgent ? new Map([...agentsOnly(parts)].filter(([agent]) => !agents || agents.has(agent))) : new Map(),
      });
    }
    return out;
  }

  /** The counts of one run of buckets of a scope, without the traces of `leaveOut` agents (tenant-wide scope). */
  async function runCounts(tenantId: string, scope: string, run: readonly BucketRef[], leaveOut: ReadonlySet<string>): Promise<TraceCounts> {
    const total: TraceCounts = { requestCount: 0, successCount: 0, errorCount: 0 };
    /** Adds an encoded rollup's counts (or a slot's: `slot`). */
    const add = (bytes: Uint8Array | undefined, sign: 1 | -1, slot = false) => {
      if (!bytes) return;
      const counts = slot ? decodeSlotCounts(bytes)[0]! : decodeRollupCounts(bytes);
      total.requestCount += sign * counts.requestCount;
      total.successCount += sign * counts.successCount;
      total.errorCount += sign * counts.errorCount;
    };
    const g = run[0]!.granularity;
    if (g === 'minute') {
      // A tenant-wide count takes each minute's counts, less the left-out agents' parts; an agent's, its part.
      const tenantWide = scope === ALL_AGENTS;
      const parts = tenantWide ? [...leaveOut] : [scope];
      const asked = [...(tenantWide ? ['counts'] : []), ...(parts.length <= PROJECTED_AGENTS ? parts.map((agent) => ['parts', agent]) : [['parts']])];
      const items = await query(tenantId, ALL_AGENTS, 'minute', run[0]!.startMs, runEnd(run), asked);
      // Minutes stored before they had their counts: all their parts.
      const uncounted = tenantWide && items.some((item) => item['counts'] === undefined);
      for (const item of uncounted ? await query(tenantId, ALL_AGENTS, 'minute', run[0]!.startMs, runEnd(run), ['parts']) : items) {
        const byAgent = Object.entries((item['parts'] ?? {}) as Record<string, Uint8Array>);
        if (uncounted) for (const [agent, bytes] of byAgent) add(leaveOut.has(agent) ? undefined : bytes, 1);
        else {
          if (tenantWide) add(item['counts'] as Uint8Array, 1, true);
          for (const [agent, bytes] of byAgent) if (parts.includes(agent)) add(bytes, tenantWide ? -1 : 1);
        }
      }
      return total;
    }
    for (const item of await query(tenantId, scope, g, run[0]!.startMs, runEnd(run), leaveOut.size > 0 ? ['rollup', 'agents'] : ['rollup'])) {
      add(item['rollup'] as Uint8Array, 1);
      for (const agent of leaveOut) add((item['agents'] as Record<string, Uint8Array> | undefined)?.[agent], -1);
    }
    return total;
  }

  /**
   * The counts of slices of a scope's hour and day buckets from their slot counts, less the leaveOut
   * agents' (from their own buckets'), all in one read; a slice whose buckets were stored without
   * slot counts is counted from its minutes or hours instead.
   */
  async function sliceCounts(tenantId: string, scope: string, slices: readonly BucketSlice[], leaveOut: ReadonlySet<string>): Promise<TraceCounts> {
    const scopes = [scope, ...(scope === ALL_AGENTS ? leaveOut : [])];
    const keyOf = (s: string, slice: BucketSlice) => keys.rollup(tenantId, s, slice.granularity, slice.startMs);
    const id = (key: Item) => `${String(key['PK'])}|${String(key['SK'])}`;
    const items = await batchGet(
      db,
      slices.flatMap((slice) => scopes.map((s) => keyOf(s, slice))),
      false,
      ['slots'],
    );
    const found = new Map(items.map((item) => [id(item), item]));
    let total = NO_TRACES;
    const unsliced: BucketRef[] = [];
    for (const slice of slices) {
      const buckets = scopes.map((s) => found.get(id(keyOf(s, slice))));
      if (buckets.some((bucket) => bucket !== undefined && bucket['slots'] === undefined)) unsliced.push(...slotRefs(slice));
      else
        buckets.forEach((bucket, i) => {
          if (bucket) total = addCounts(total, sliceOf(decodeSlotCounts(bucket['slots'] as Uint8Array), slice), i === 0 ? 1 : -1);
        });
    }
    if (unsliced.length === 0) return total;
    const runs = await Promise.all(runsOf(unsliced).map((run) => runCounts(tenantId, scope, run, leaveOut)));
    return runs.reduce((sum, c) => addCounts(sum, c), total);
  }

  /**
   * Adds the hour to (or takes it from) the tenant's set of hours whose hour and day buckets are
   * stale; taking one out counts a recompute (see `dirtyHoursAndRecomputes`).
   */
  const noteDirtyHour = (tenantId: string, hourStartMs: number, change: 'ADD' | 'DELETE') =>
    doc.send(
      new UpdateCommand({
        TableName,
        Key: keys.rollupDirtyHours(tenantId),
        UpdateExpression: change === 'ADD' ? 'ADD hours :h' : 'DELETE hours :h ADD recomputes :one',
        ExpressionAttributeValues: { ':h': new Set([hourStartMs]), ...(change === 'DELETE' ? { ':one': 1 } : {}) },
      }),
    );

  async function dirtyHoursAndRecomputes(tenantId: string): Promise<{ hours: number[]; recomputes: number }> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.rollupDirtyHours(tenantId), ConsistentRead: true }));
    return {
      hours: [...((Item?.['hours'] as Set<number> | undefined) ?? [])].map(Number).sort((a, b) => a - b),
      recomputes: Number(Item?.['recomputes'] ?? 0),
    };
  }

  /**
   * The marker the compaction finds the hour by, then the hour in the tenant's own set, which reads
   * take its minutes for (see `dirtyHours`); the compaction takes it out of the set before it removes
   * the marker, so the set never lacks an hour whose marker is there.
   */
  async function markDirty(tenantId: string, hourStartMs: number, expiresAt: number): Promise<void> {
    await doc.send(
      new UpdateCommand({
        TableName,
        Key: keys.rollupDirty(tenantId, hourStartMs),
        UpdateExpression: 'ADD version :one SET tenantId = :t, hourStartMs = :h, expiresAt = :e, entity = :entity',
        ExpressionAttributeValues: { ':one': 1, ':t': tenantId, ':h': hourStartMs, ':e': expiresAt, ':entity': 'rollupDirty' },
      }),
    );
    await noteDirtyHour(tenantId, hourStartMs, 'ADD');
  }

  /**
   * Counts the traces not yet counted in the minute bucket, for every batch gathered into this turn.
   * An hour is marked dirty when one of its minute buckets is created and, once the hour is over,
   * on every write (after it, so that a compaction reading the minutes before it fails to remove the
   * marker; and even when everything was counted already, in case a crash came between the two).
   */
  async function countOnce(tenantId: string, minuteStartMs: number, batches: ReadonlyArray<{ traces: readonly TraceSummary[]; expiresAt: number }>) {
    const hourStartMs = bucketStart(minuteStartMs, 'hour');
    const expiresAt = Math.max(...batches.map((b) => b.expiresAt));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const { Item: current } = await doc.send(
        new GetCommand({ TableName, Key: keys.rollup(tenantId, ALL_AGENTS, 'minute', minuteStartMs), ConsistentRead: true }),
      );
      const counted = (current?.['traces'] as Uint8Array | undefined) ?? new Uint8Array();
      const seen = new Set(traceKeysOf(counted));
      const fresh: TraceSummary[] = [];
      const freshKeys: Uint8Array[] = [];
      for (const trace of batches.flatMap((b) => b.traces)) {
        const key = traceKey(trace.traceId);
        const hex = Buffer.from(key).toString('hex');
        if (seen.has(hex)) continue;
        seen.add(hex);
        fresh.push(trace);
        freshKeys.push(key);
      }
      const hourIsOver = hourStartMs !== bucketStart(now(), 'hour');
      if (fresh.length === 0) {
        if (hourIsOver) await markDirty(tenantId, hourStartMs, expiresAt);
        return;
      }
      if (!current && !hourIsOver) await markDirty(tenantId, hourStartMs, expiresAt);
      const version = Number(current?.['version'] ?? 0);
      const parts = mergeByAgent([decodeByAgent(current?.['parts']), minuteParts(fresh)]);
      const put = doc.send(
        new PutCommand({
          TableName,
          Item: rollupItems.minute(
            tenantId,
            minuteStartMs,
            parts,
            Buffer.concat([counted, ...freshKeys]),
            version + 1,
            Math.max(expiresAt, Number(current?.['expiresAt'] ?? 0)),
          ),
          ConditionExpression: current ? 'version = :v' : 'attribute_not_exists(PK)',
          ...(current ? { ExpressionAttributeValues: { ':v': version } } : {}),
        }),
      );
      if (!(await written(put))) continue;
      if (hourIsOver) await markDirty(tenantId, hourStartMs, expiresAt);
      return;
    }
    throw new Error(`minute bucket ${minuteStartMs} of tenant ${tenantId} stayed contended for ${MAX_ATTEMPTS} attempts`);
  }

  /** Drops the agent's part of a minute bucket (a versioned replace, retried on conflict). */
  async function forgetInMinute(tenantId: string, agentId: string, minuteStartMs: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const { Item: current } = await doc.send(
        new GetCommand({ TableName, Key: keys.rollup(tenantId, ALL_AGENTS, 'minute', minuteStartMs), ConsistentRead: true }),
      );
      const parts = decodeByAgent(current?.['parts']);
      if (!current || !parts.delete(agentId)) return;
      const version = Number(current['version'] ?? 0);
      const item = rollupItems.minute(tenantId, minuteStartMs, parts, current['traces'] as Uint8Array, version + 1, Number(current['expiresAt']));
      const put = new PutCommand({ TableName, Item: item, ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } });
      if (await written(doc.send(put))) return;
    }
    throw new Error(`minute bucket ${minuteStartMs} of tenant ${tenantId} stayed contended for ${MAX_ATTEMPTS} attempts`);
  }

  /**
   * Recomputes a tenant's hour (tenant-wide and per agent) from its minutes; answers the agents it saw,
   * and those the hour counted before and no longer does (a deleted agent's part taken out of its
   * minutes, `forgetAgent`): their hour is written empty, so that their own buckets, which the trace
   * list's totals take off the tenant's for agents deleted lately, agree with the tenant's.
   * The compaction reads what it recomputes from strongly consistently, here and in recomputeDay: it
   * may run moments after the write it recomputes for (a late trace's minute, then its marker; the
   * hour buckets put just before the day's), and once the marker is gone the hour is not recomputed
   * until a write dirties it again, nor its day until another of its hours is: a bucket read before
   * that write would stay wrong (on AWS; dynalite's reads are all consistent).
   */
  async function recomputeHour(tenantId: string, hourStartMs: number, expiresAt: number): Promise<string[]> {
    const [byMinute, before] = await Promise.all([
      minutes(tenantId, hourStartMs, hourStartMs + BUCKET_MS.hour, undefined, true),
      doc.send(
        new GetCommand({
          TableName,
          Key: keys.rollup(tenantId, ALL_AGENTS, 'hour', hourStartMs),
          ConsistentRead: true,
          ProjectionExpression: '#agents',
          ExpressionAttributeNames: { '#agents': 'agents' },
        }),
      ),
    ]);
    const parts = mergeByAgent(byMinute.values());
    const agents = agentsOnly(parts);
    const gone = Object.keys((before.Item?.['agents'] as Record<string, unknown> | undefined) ?? {}).filter((agentId) => !agents.has(agentId));
    /** The hour's minutes' counts of a scope, as `count` finds them in each minute's rollups by agent. */
    const slots = (count: (minute: ByAgent) => TraceCounts | undefined) => {
      const bySlot = new Map<number, TraceCounts>();
      for (const [minuteMs, minute] of byMinute) {
        const counted = count(minute);
        if (counted) bySlot.set(minuteMs, counted);
      }
      return slotsOf('hour', hourStartMs, bySlot);
    };
    const all = slots((minute) => [...minute.values()].reduce<TraceCounts>((sum, r) => addCounts(sum, r), NO_TRACES));
    await Promise.all([
      put(rollupItems.coarse(tenantId, ALL_AGENTS, 'hour', hourStartMs, mergeRollups([...parts.values()]), all, agents, expiresAt)),
      ...[...agents].map(([agentId, rollup]) =>
        put(
          rollupItems.coarse(
            tenantId,
            agentId,
            'hour',
            hourStartMs,
            rollup,
            slots((minute) => minute.get(agentId)),
            new Map(),
            expiresAt,
          ),
        ),
      ),
      ...gone.map((agentId) =>
        put(rollupItems.coarse(tenantId, agentId, 'hour', hourStartMs, emptyRollup(), slotsOf('hour', hourStartMs, new Map()), new Map(), expiresAt)),
      ),
    ]);
    return [...agents.keys(), ...gone];
  }

  async function recomputeDay(tenantId: string, scope: string, dayStartMs: number, expiresAt: number): Promise<void> {
    const byHour = await coarse(tenantId, scope, 'hour', dayStartMs, dayStartMs + BUCKET_MS.day, scope === ALL_AGENTS, undefined, true);
    const hours = [...byHour.values()];
    const overall = mergeRollups(hours.map((h) => h.overall));
    const slots = slotsOf('day', dayStartMs, new Map([...byHour].map(([hourMs, h]) => [hourMs, countsOf(h.overall)])));
    await put(rollupItems.coarse(tenantId, scope, 'day', dayStartMs, overall, slots, mergeByAgent(hours.map((h) => h.byAgent)), expiresAt));
  }

  /**
   * Notes that a day bucket of the scope changed: its settled item (the sum of the window's day
   * buckets) is stale until recomputed with the new count of changes (see `settle`).
   */
  const noteDayChanged = (tenantId: string, scope: string, expiresAt: number) =>
    doc.send(
      new UpdateCommand({
        TableName,
        Key: keys.rollupSettled(tenantId, scope),
        UpdateExpression: 'ADD changes :one SET entity = :entity, #scope = :scope, expiresAt = :e',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'rollupSettled', ':scope': scope, ':e': expiresAt },
      }),
    );

  /**
   * Whether the stored settled item sums the window's day buckets as they are: same window, no change
   * since it was computed, and it holds the part asked for (one stored before the days' counts is recomputed once).
   */
  const isCurrent = (item: Item | undefined, window: DayWindow, part: SettledPart): item is Item =>
    item !== undefined &&
    item[part] !== undefined &&
    Number(item['fromMs']) === window.fromMs &&
    Number(item['toMs']) === window.toMs &&
    Number(item['computedAt']) === Number(item['changes']);

  /**
   * Sums the window's day buckets of the scope (a consistent read, after the count of changes was
   * read) and stores the sum, unless a day bucket changed meanwhile: the compaction counts a change
   * after it puts a day bucket, so a sum read before that put is stored with a count it no longer
   * has, or refused by the condition.
   */
  async function settle(tenantId: string, scope: string, window: DayWindow, stored: Item | undefined): Promise<SettledDays> {
    const changes = Number(stored?.['changes'] ?? 0);
    const days = new Map(
      (await query(tenantId, scope, 'day', window.fromMs, window.toMs, ['startMs', 'rollup'], true)).map((d) => [
        Number(d['startMs']),
        decodeRollup(d['rollup'] as Uint8Array),
      ]),
    );
    const sum = mergeRollups([...days.values()]);
    const dayCounts = bucketsBetween(window.fromMs, window.toMs, 'day').map((dayMs) => (days.has(dayMs) ? countsOf(days.get(dayMs)!) : NO_TRACES));
    await written(
      doc.send(
        new PutCommand({
          TableName,
          Item: {
            ...keys.rollupSettled(tenantId, scope),
            entity: 'rollupSettled',
            scope,
            fromMs: window.fromMs,
            toMs: window.toMs,
            rollup: encodeRollup(sum),
            dayCounts: encodeSlotCounts(dayCounts),
            changes,
            computedAt: changes,
            // Once every day of the window is past any retention it was computed for.
            expiresAt: Math.floor((2 * window.toMs - window.fromMs + BUCKET_MS.day) / 1000),
          },
          ConditionExpression: stored ? 'changes = :changes' : 'attribute_not_exists(PK)',
          ...(stored ? { ExpressionAttributeValues: { ':changes': changes } } : {}),
        }),
      ),
    );
    return { rollup: sum, dayCounts };
  }

  /** The scopes' settled items (only their state and the part asked for), recomputed where not current. */
  async function settledOf(tenantId: string, scopes: readonly string[], window: DayWindow, part: SettledPart): Promise<Map<string, SettledDays>> {
    if (window.toMs <= window.fromMs) return new Map(scopes.map((scope) => [scope, { rollup: emptyRollup(), dayCounts: [] }]));
    const found = await batchGet(
      db,
      scopes.map((scope) => keys.rollupSettled(tenantId, scope)),
      true,
      ['scope', 'fromMs', 'toMs', 'changes', 'computedAt', part],
    );
    const byScope = new Map(found.map((item) => [String(item['scope']), item]));
    const stored = (item: Item): SettledDays =>
      part === 'rollup'
        ? { rollup: decodeRollup(item['rollup'] as Uint8Array), dayCounts: [] }
        : { rollup: emptyRollup(), dayCounts: decodeSlotCounts(item['dayCounts'] as Uint8Array) };
    const sums = await Promise.all(
      scopes.map(async (scope) => {
        const item = byScope.get(scope);
        return [scope, isCurrent(item, window, part) ? stored(item) : await settle(tenantId, scope, window, item)] as const;
      }),
    );
    return new Map(sums);
  }

  return {
    async settled(tenantId: string, scopes: readonly string[], window: DayWindow): Promise<Map<string, Rollup>> {
      return new Map([...(await settledOf(tenantId, scopes, window, 'rollup'))].map(([scope, days]) => [scope, days.rollup]));
    },

    async settledDayCounts(tenantId: string, scopes: readonly string[], window: DayWindow): Promise<Map<string, readonly TraceCounts[]>> {
      return new Map([...(await settledOf(tenantId, scopes, window, 'dayCounts'))].map(([scope, days]) => [scope, days.dayCounts]));
    },

    /**
     * Counts finished traces that started in one minute into the tenant's minute bucket, each trace
     * once. Batches arriving while the bucket is being written are gathered into the next write.
     */
    countTraces(tenantId: string, minuteStartMs: number, traces: readonly TraceSummary[], expiresAt: number): Promise<void> {
      return inGatheredTurn(`${tenantId}|${minuteStartMs}`, { traces, expiresAt }, (batches) => countOnce(tenantId, minuteStartMs, batches));
    },

    /** Notes that an hour (and so its day) must be recomputed; the version tells a later change apart. */
    markDirty,

    /**
     * The bucket keeps the keys of the traces it counted, so a deleted trace sent again is not counted
     * again; the agent is gone, and a trace sent again names a new one.
     */
    async forgetAgent(tenantId: string, agentId: string, minuteStarts: readonly number[], expiresAt: number): Promise<void> {
      for (const minuteStartMs of new Set(minuteStarts)) await forgetInMinute(tenantId, agentId, minuteStartMs);
      // After the minutes: a compaction that read them before finds its marker's version changed.
      for (const hourStartMs of new Set(minuteStarts.map((ms) => bucketStart(ms, 'hour')))) await markDirty(tenantId, hourStartMs, expiresAt);
    },

    /**
     * Recomputes up to `limit` dirty hours that have settled (oldest first) and their days. A marker
     * is removed only if nobody dirtied the hour again meanwhile; otherwise the next run recomputes it once more.
     */
    async compactDirty(limit: number, expiresAtOf: (tenantId: string) => Promise<number>, nowMs: number): Promise<number> {
      const page = await doc.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk AND SK < :settled',
          ExpressionAttributeValues: { ':pk': keys.rollupDirtyPartition(), ':settled': rollupDirtyBefore(bucketStart(nowMs - SETTLE_MS, 'hour')) },
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      for (const marker of page.Items ?? []) {
        const tenantId = String(marker['tenantId']);
        const hourStartMs = Number(marker['hourStartMs']);
        const dayStartMs = bucketStart(hourStartMs, 'day');
        const expiresAt = await expiresAtOf(tenantId);
        const agents = await recomputeHour(tenantId, hourStartMs, expiresAt);
        await Promise.all([ALL_AGENTS, ...agents].map((scope) => recomputeDay(tenantId, scope, dayStartMs, expiresAt)));
        // A past day may be in a settled window (today never is); counted before the hour leaves the dirty set, which reads check first.
        if (dayStartMs < bucketStart(nowMs, 'day')) await Promise.all([ALL_AGENTS, ...agents].map((scope) => noteDayChanged(tenantId, scope, expiresAt)));
        await noteDirtyHour(tenantId, hourStartMs, 'DELETE');
        const cleared = await written(
          doc.send(
            new DeleteCommand({
              TableName,
              Key: { PK: marker['PK'], SK: marker['SK'] },
              ConditionExpression: 'version = :v',
              ExpressionAttributeValues: { ':v': marker['version'] },
            }),
          ),
        );
        if (!cleared) await noteDirtyHour(tenantId, hourStartMs, 'ADD'); // dirtied again meanwhile: still stale
      }
      return page.Items?.length ?? 0;
    },

    /** The tenant's hours whose hour and day buckets are not recomputed yet (their minutes are the truth). */
    async dirtyHours(tenantId: string): Promise<number[]> {
      return (await dirtyHoursAndRecomputes(tenantId)).hours;
    },

    dirtyHoursAndRecomputes,

    /**
     * How many traces the given buckets of a scope count (ok, in error, all), without those of the
     * `leaveOut` agents: only the counts are decoded, not the sketches.
     */
    async counts(tenantId: string, scope: string, refs: readonly CountRef[], leaveOut: ReadonlySet<string> = new Set()): Promise<TraceCounts> {
      const slices = refs.filter(isSlice);
      const [sliced, ...runs] = await Promise.all([
        slices.length > 0 ? sliceCounts(tenantId, scope, slices, leaveOut) : NO_TRACES,
        ...runsOf(refs.filter((ref) => !isSlice(ref))).map((run) => runCounts(tenantId, scope, run, leaveOut)),
      ]);
      return runs.reduce((sum, c) => addCounts(sum, c), sliced);
    },

    /**
     * The rollups of the given buckets of a scope (missing buckets are simply absent: nothing happened
     * then); with `byAgent`, a tenant-wide bucket also answers each agent's rollup.
     */
    async read(
      tenantId: string,
      scope: string,
      refs: readonly BucketRef[],
      { byAgent = false, agents }: { byAgent?: boolean; agents?: ReadonlySet<string> } = {},
    ): Promise<Map<string, BucketRollup>> {
      const out = new Map<string, BucketRollup>();
      const runs = runsOf(refs);
      const results = await Promise.all(runs.map((run) => range(tenantId, scope, run[0]!.granularity, run[0]!.startMs, runEnd(run), byAgent, agents)));
      runs.forEach((run, i) => {
        for (const ref of run) {
          const bucket = results[i]!.get(ref.startMs);
          if (bucket) out.set(bucketRefKey(ref), bucket);
        }
      });
      return out;
    },
  };
}
