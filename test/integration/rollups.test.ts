import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_MS, type BucketRef, type BucketSlice, bucketRefKey, bucketStart, settledWindow } from '#shared/domain/analytics/buckets.ts';
import type { BucketRollup } from '#shared/domain/analytics/ports.ts';
import { agentRollups, finishedTraceCount } from '#shared/domain/analytics/queries.ts';
import { ALL_AGENTS, decodeSlotCounts, encodeRollup, groupBy, type Rollup, rollupOf, withoutModels } from '#shared/domain/analytics/rollup.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { startDynamo } from '../support/dynamo.ts';
import { randomTraces, seededRandom, traceSummary } from '../unit/analytics/fixtures.ts';

const MINUTE = BUCKET_MS.minute;
const HOUR = BUCKET_MS.hour;
/** An hour start; the writers' clock is set relative to it. */
const H = Date.UTC(2026, 10, 20, 10);
const EXPIRES = 2_000_000_000;
/** Longer than the compaction waits for an hour to settle. */
const SETTLE_WAIT = 10 * MINUTE;

let db: Db;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, stop } = await startDynamo('aos-rollups'));
});
afterAll(() => stop());

let nowMs: number;
const rollups = () => rollupsRepository(db, () => nowMs);
let tenants = 0;
const newTenant = () => `tnt_rollups_${++tenants}`;

const trace = (traceId: string, agentId: string | null, startTimeMs: number, over: Partial<TraceSummary> = {}) =>
  traceSummary({
    traceId,
    agentId,
    startTimeMs,
    endTimeMs: startTimeMs + 250,
    durationMs: 250,
    inputTokens: 10,
    outputTokens: 5,
    totalTokens: 15,
    cost: 0.001,
    ...over,
  });

const stored = async (key: Record<string, unknown>) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }))).Item;
const minuteItem = (tenantId: string, startMs: number) => stored(keys.rollup(tenantId, ALL_AGENTS, 'minute', startMs));
const marker = (tenantId: string, hourStartMs: number) => stored(keys.rollupDirty(tenantId, hourStartMs));
const compact = (atMs: number) => rollups().compactDirty(100, async () => EXPIRES, atMs);

/** Rollups compare by their canonical encoding. */
const bytes = (r: Rollup | undefined) => (r ? encodeRollup(r) : undefined);
const readOne = async (tenantId: string, scope: string, ref: BucketRef, byAgent = false): Promise<BucketRollup | undefined> =>
  (await rollups().read(tenantId, scope, [ref], { byAgent })).get(bucketRefKey(ref));

describe('counting traces into minute buckets', () => {
  it('counts each trace once: a message processed again, or a trace sent again in another message, changes nothing', async () => {
    nowMs = H + 30 * MINUTE;
    const t = newTenant();
    const m = H + 5 * MINUTE;
    const first = [trace('a', 'agt_1', m + 1000), trace('b', 'agt_2', m + 2000), trace('c', null, m + 3000)];
    await rollups().countTraces(t, m, first, EXPIRES);
    const once = await minuteItem(t, m);
    await rollups().countTraces(t, m, first, EXPIRES);
    expect(await minuteItem(t, m)).toEqual(once);

    await rollups().countTraces(t, m, [trace('b', 'agt_2', m + 2000), trace('d', 'agt_1', m + 4000)], EXPIRES);
    const bucket = await readOne(t, ALL_AGENTS, { granularity: 'minute', startMs: m }, true);
    const all = [...first, trace('d', 'agt_1', m + 4000)];
    expect(bytes(bucket?.overall)).toEqual(bytes(rollupOf(all)));
    expect([...bucket!.byAgent.keys()].sort()).toEqual(['agt_1', 'agt_2']);
    expect(bytes(bucket!.byAgent.get('agt_1'))).toEqual(bytes(rollupOf(all.filter((x) => x.agentId === 'agt_1'))));
    expect(bytes((await readOne(t, 'agt_2', { granularity: 'minute', startMs: m }))?.overall)).toEqual(bytes(rollupOf([first[1]!])));
    expect(await readOne(t, 'agt_9', { granularity: 'minute', startMs: m })).toBeUndefined();
    expect((await minuteItem(t, m))?.['version']).toBe(2);
  });

  it('gathers the batches that arrive while the bucket is being written into one write, each trace once', async () => {
    nowMs = H + 30 * MINUTE;
    const t = newTenant();
    const m = H + 6 * MINUTE;
    const traces = randomTraces(seededRandom(3), 50, m, m + MINUTE).map((x, i) => ({ ...x, traceId: `g${i % 40}` }));
    const batches = [0, 1, 2, 3, 4].map((i) => traces.slice(i * 10, i * 10 + 10));
    await Promise.all(batches.map((b) => rollups().countTraces(t, m, b, EXPIRES)));
    expect((await minuteItem(t, m))?.['version']).toBe(1);
    const counted = traces.filter((x, i) => traces.findIndex((y) => y.traceId === x.traceId) === i);
    expect(counted).toHaveLength(40);
    expect(bytes((await readOne(t, ALL_AGENTS, { granularity: 'minute', startMs: m }))?.overall)).toEqual(bytes(rollupOf(counted)));
  });
});

describe('dirty hours and their compaction', () => {
  it('marks an hour at the first write of each of its minutes while it is current, and compacts it only once it has settled', async () => {
    const t = newTenant();
    nowMs = H + 30 * MINUTE;
    await rollups().countTraces(t, H + 10 * MINUTE, [trace('a', 'agt_1', H + 10 * MINUTE)], EXPIRES);
    expect((await marker(t, H))?.['version']).toBe(1);
    await rollups().countTraces(t, H + 10 * MINUTE, [trace('b', 'agt_2', H + 10 * MINUTE + 5)], EXPIRES);
    expect((await marker(t, H))?.['version']).toBe(1);
    await rollups().countTraces(t, H + 11 * MINUTE, [trace('c', 'agt_1', H + 11 * MINUTE)], EXPIRES);
    expect((await marker(t, H))?.['version']).toBe(2);

    for (const atMs of [H + 59 * MINUTE, H + HOUR + 4 * MINUTE]) {
      await compact(atMs);
      expect(await marker(t, H), `compacted at ${new Date(atMs).toISOString()}`).toBeDefined();
      expect(await readOne(t, ALL_AGENTS, { granularity: 'hour', startMs: H })).toBeUndefined();
    }
    expect(await rollups().dirtyHours(t)).toEqual([H]);
    await compact(H + HOUR + 5 * MINUTE);
    expect(await marker(t, H)).toBeUndefined();
    expect(await rollups().dirtyHours(t)).toEqual([]);
    const traces = [trace('a', 'agt_1', H + 10 * MINUTE), trace('b', 'agt_2', H + 10 * MINUTE + 5), trace('c', 'agt_1', H + 11 * MINUTE)];
    for (const granularity of ['hour', 'day'] as const) {
      const ref = { granularity, startMs: granularity === 'hour' ? H : Date.UTC(2026, 10, 20) };
      const whole = await readOne(t, ALL_AGENTS, ref, true);
      expect(bytes(whole?.overall), granularity).toEqual(bytes(rollupOf(traces)));
      expect(bytes(whole?.byAgent.get('agt_1'))).toEqual(bytes(withoutModels(rollupOf([traces[0]!, traces[2]!]))));
      expect(bytes((await readOne(t, 'agt_2', ref))?.overall)).toEqual(bytes(rollupOf([traces[1]!])));
    }
  });

  it('marks every write once the hour is over, after the write, and again for a message processed anew after a crash in between', async () => {
    const t = newTenant();
    nowMs = H + 3 * HOUR;
    const late = [trace('late-1', 'agt_1', H + 20 * MINUTE)];
    await rollups().countTraces(t, H + 20 * MINUTE, late, EXPIRES);
    await compact(nowMs);
    expect(await marker(t, H)).toBeUndefined();
    expect((await readOne(t, 'agt_1', { granularity: 'hour', startMs: H }))?.overall.requestCount).toBe(1);

    const later = [trace('late-2', 'agt_1', H + 20 * MINUTE + 1)];
    await rollups().countTraces(t, H + 20 * MINUTE, later, EXPIRES);
    expect(await marker(t, H)).toBeDefined();
    // The marker lost, as if the worker had crashed after the bucket write: the message comes again.
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.rollupDirty(t, H) }));
    await rollups().countTraces(t, H + 20 * MINUTE, later, EXPIRES);
    expect(await marker(t, H)).toBeDefined();
    await compact(nowMs);
    expect((await readOne(t, 'agt_1', { granularity: 'hour', startMs: H }))?.overall.requestCount).toBe(2);
    expect((await readOne(t, ALL_AGENTS, { granularity: 'day', startMs: Date.UTC(2026, 10, 20) }))?.overall.requestCount).toBe(2);
  });

  it('give the exact count of finished traces at every step, from the dirty hours alone: the current hour, the recomputed one, a late trace in it', async () => {
    const t = newTenant();
    const repository = () => ({ store: { rollups: rollups() } });
    const count = (startMs: number, endMs: number) => finishedTraceCount(repository(), t, ALL_AGENTS, { startMs, endMs, leaveOut: [] });
    const day = Date.UTC(2026, 10, 20);
    nowMs = H + 30 * MINUTE;
    await rollups().countTraces(t, H + 10 * MINUTE, [trace('a', 'agt_1', H + 10 * MINUTE), trace('b', 'agt_1', H + 10 * MINUTE + 1)], EXPIRES);
    expect(await count(H, H + HOUR)).toBe(2);
    expect(await count(day, day + BUCKET_MS.day)).toBe(2);

    nowMs = H + HOUR + 10 * MINUTE;
    await compact(nowMs);
    expect(await rollups().dirtyHours(t)).toEqual([]);
    expect(await count(day, day + BUCKET_MS.day)).toBe(2);

    nowMs = H + HOUR + 20 * MINUTE;
    await rollups().countTraces(t, H + 20 * MINUTE, [trace('late', 'agt_1', H + 20 * MINUTE)], EXPIRES);
    expect(await count(H, H + HOUR)).toBe(3);
    expect(await count(day, day + BUCKET_MS.day)).toBe(3);
    await compact(nowMs + SETTLE_WAIT);
    expect(await count(day, day + BUCKET_MS.day)).toBe(3);
  });

  it('keeps a marker that was dirtied again while its hour was being recomputed', async () => {
    const t = newTenant();
    nowMs = H + 3 * HOUR;
    await rollups().countTraces(t, H, [trace('x', null, H)], EXPIRES);
    const repository = rollupsRepository(db, () => nowMs);
    let dirtied = false;
    await repository.compactDirty(
      100,
      async (tenantId) => {
        if (tenantId === t && !dirtied) {
          dirtied = true;
          await repository.markDirty(t, H, EXPIRES);
        }
        return EXPIRES;
      },
      nowMs,
    );
    expect((await marker(t, H))?.['version']).toBe(2);
    expect(await repository.dirtyHours(t)).toEqual([H]);
  });

  it('reads the minutes and hours it recomputes from strongly consistently: on AWS a read moments after a write may miss it, and the bucket would stay wrong', async () => {
    const t = newTenant();
    nowMs = H + 3 * HOUR;
    await rollups().countTraces(t, H + MINUTE, [trace('c1', 'agt_1', H + MINUTE), trace('c2', null, H + MINUTE)], EXPIRES);
    const reads: Array<{ sortKey: string; consistent: boolean }> = [];
    const watched: Db = {
      tableName: db.tableName,
      doc: {
        send: (command: unknown) => {
          const input = (command as QueryCommand).input;
          const partition = String(input.ExpressionAttributeValues?.[':pk'] ?? '');
          if (command instanceof QueryCommand && partition.startsWith(`TENANT#${t}#ROLLUPV2#`))
            reads.push({ sortKey: String(input.ExpressionAttributeValues?.[':lower']), consistent: input.ConsistentRead === true });
          return db.doc.send(command as QueryCommand);
        },
      } as Db['doc'],
    };
    await rollupsRepository(watched, () => nowMs).compactDirty(100, async () => EXPIRES, nowMs);
    expect(reads.map((r) => r.sortKey.split('#')[0]).sort()).toEqual(['hour', 'hour', 'minute']); // the minutes, then the hours of the day, tenant-wide and the agent's
    expect(reads.every((r) => r.consistent)).toBe(true);
  });

  it('lists the settled markers oldest first, whatever the tenant', async () => {
    const [a, b] = [newTenant(), newTenant()];
    for (const [tenantId, hour] of [
      [a, H + 2 * HOUR],
      [b, H - 30 * 24 * HOUR],
      [a, H],
    ] as const)
      await rollups().markDirty(tenantId, hour, EXPIRES);
    const { Items = [] } = await db.doc.send(
      new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.rollupDirtyPartition() } }),
    );
    const mine = Items.filter((i) => i['tenantId'] === a || i['tenantId'] === b).map((i) => [i['tenantId'], i['hourStartMs']]);
    expect(mine).toEqual([
      [b, H - 30 * 24 * HOUR],
      [a, H],
      [a, H + 2 * HOUR],
    ]);
  });
});

describe('trace counts from the buckets', () => {
  it('equal the full rollups in every scope and granularity, without the agents left out, and read only the asked agents', async () => {
    const t = newTenant();
    nowMs = H + 3 * HOUR;
    const random = seededRandom(5);
    const traces = Array.from({ length: 60 }, (_, i) =>
      trace(`t${i}`, random.pick(['agt_1', 'agt_2', null]), H + random.int(0, 2 * HOUR - 1), { status: random.chance(0.3) ? 'error' : 'ok' }),
    );
    for (const [minute, group] of groupBy(traces, (tr) => Math.floor(tr.startTimeMs / MINUTE) * MINUTE)) await rollups().countTraces(t, minute, group, EXPIRES);
    await compact(nowMs);
    const refs: BucketRef[] = [
      { granularity: 'hour', startMs: H },
      ...Array.from({ length: 60 }, (_, i) => ({ granularity: 'minute' as const, startMs: H + HOUR + i * MINUTE })),
    ];
    const of = (pick: (tr: TraceSummary) => boolean) => ({
      requestCount: traces.filter(pick).length,
      successCount: traces.filter((tr) => pick(tr) && tr.status === 'ok').length,
      errorCount: traces.filter((tr) => pick(tr) && tr.status === 'error').length,
    });
    expect(await rollups().counts(t, ALL_AGENTS, refs)).toEqual(of(() => true));
    expect(await rollups().counts(t, 'agt_1', refs)).toEqual(of((tr) => tr.agentId === 'agt_1'));
    expect(await rollups().counts(t, ALL_AGENTS, refs, new Set(['agt_2']))).toEqual(of((tr) => tr.agentId !== 'agt_2'));
    const read = await rollups().read(t, ALL_AGENTS, refs, { byAgent: true, agents: new Set(['agt_1']) });
    expect(new Set([...read.values()].flatMap((b) => [...b.byAgent.keys()]))).toEqual(new Set(['agt_1']));

    // Parts of buckets, from their slot counts: minutes of an hour, hours of a day, in one read.
    const day = bucketStart(H, 'day');
    const slices: BucketSlice[] = [
      { granularity: 'hour', startMs: H, fromMs: H + 7 * MINUTE, toMs: H + 41 * MINUTE },
      { granularity: 'day', startMs: day, fromMs: H + HOUR, toMs: day + BUCKET_MS.day },
      { granularity: 'day', startMs: day, fromMs: day, toMs: H },
    ];
    const inSlices = (tr: TraceSummary) => slices.some((s) => tr.startTimeMs >= s.fromMs && tr.startTimeMs < s.toMs);
    const sliceTruth = {
      all: of(inSlices),
      agent: of((tr) => inSlices(tr) && tr.agentId === 'agt_1'),
      leftOut: of((tr) => inSlices(tr) && tr.agentId !== 'agt_2'),
    };
    const sliceCounts = async () => ({
      all: await rollups().counts(t, ALL_AGENTS, slices),
      agent: await rollups().counts(t, 'agt_1', slices),
      leftOut: await rollups().counts(t, ALL_AGENTS, slices, new Set(['agt_2'])),
    });
    expect(sliceTruth.all.requestCount).toBeGreaterThan(0);
    expect(await sliceCounts()).toEqual(sliceTruth);

    // Buckets stored before they had slot counts: the parts are counted from their minutes and hours.
    for (const scope of [ALL_AGENTS, 'agt_1', 'agt_2'])
      for (const [granularity, startMs] of [
        ['hour', H],
        ['hour', H + HOUR],
        ['day', day],
      ] as const)
        await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: keys.rollup(t, scope, granularity, startMs), UpdateExpression: 'REMOVE slots' }));
    expect(await sliceCounts()).toEqual(sliceTruth);

    // Minute buckets stored before they had their counts: counted from their parts.
    const minutes = [...groupBy(traces, (tr) => Math.floor(tr.startTimeMs / MINUTE) * MINUTE).keys()].filter((m) => m >= H + HOUR);
    expect(await minuteItem(t, minutes[0]!)).toHaveProperty('counts');
    for (const minute of minutes.filter((_, i) => i % 2 === 0))
      await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: keys.rollup(t, ALL_AGENTS, 'minute', minute), UpdateExpression: 'REMOVE counts' }));
    expect(await rollups().counts(t, ALL_AGENTS, refs)).toEqual(of(() => true));
    expect(await rollups().counts(t, ALL_AGENTS, refs, new Set(['agt_2']))).toEqual(of((tr) => tr.agentId !== 'agt_2'));
  });
});

describe('settled days', () => {
  const DAY = BUCKET_MS.day;
  const today = Date.UTC(2026, 10, 20);
  /** Five days of retention: the four whole days before today are settled. */
  const RETENTION_DAYS = 5;
  const compactAll = async (atMs: number) => {
    while ((await compact(atMs)) > 0);
  };
  const settledItem = (tenantId: string, scope: string) => stored(keys.rollupSettled(tenantId, scope));
  const isCurrent = (item: Record<string, unknown> | undefined) => item !== undefined && item['computedAt'] === item['changes'];

  /** Traces over the last seven days (two of them before the settled window) and today, in two agents and none. */
  async function seeded(t: string) {
    const random = seededRandom(18);
    const traces = Array.from({ length: 36 }, (_, i) =>
      trace(`s${i}`, random.pick(['agt_1', 'agt_2', null]), today - 7 * DAY + random.int(0, 7 * DAY + 2 * HOUR), {
        status: random.chance(0.2) ? 'error' : 'ok',
      }),
    );
    for (const [minute, group] of groupBy(traces, (tr) => Math.floor(tr.startTimeMs / MINUTE) * MINUTE)) await rollups().countTraces(t, minute, group, EXPIRES);
    return traces;
  }

  it('count the whole past days from one item per scope, exact through late data, its compaction, a race with it and a new day', async () => {
    const t = newTenant();
    nowMs = today + 3 * HOUR;
    const traces = await seeded(t);
    await compactAll(nowMs);
    const count = (scope: string, from: number, leaveOut: readonly string[] = [], status?: 'ok' | 'error', retentionDays = RETENTION_DAYS) =>
      finishedTraceCount({ store: { rollups: rollups() } }, t, scope, {
        startMs: from,
        endMs: today + 3 * HOUR,
        leaveOut,
        ...(status ? { status } : {}),
        settled: settledWindow(nowMs, retentionDays),
      });
    const truth = (from: number, pick: (tr: TraceSummary) => boolean = () => true) =>
      traces.filter((tr) => tr.startTimeMs >= from && tr.startTimeMs < today + 3 * HOUR && pick(tr)).length;

    // A window longer than the data (its first days hold nothing), then the window's four days, the
    // range's five (one more to read), its three (one to take off), its four and a ragged start.
    for (const retentionDays of [10, RETENTION_DAYS])
      for (const from of [today - 4 * DAY, today - 5 * DAY, today - 3 * DAY, today - 7 * DAY - 90 * MINUTE, today - 4 * DAY - 90 * MINUTE]) {
        const at = `${retentionDays} days, from ${new Date(from).toISOString()}`;
        expect(await count(ALL_AGENTS, from, [], undefined, retentionDays), at).toBe(truth(from));
        expect(await count(ALL_AGENTS, from, ['agt_2'], 'error', retentionDays), at).toBe(truth(from, (tr) => tr.agentId !== 'agt_2' && tr.status === 'error'));
        expect(await count('agt_1', from, [], undefined, retentionDays), at).toBe(truth(from, (tr) => tr.agentId === 'agt_1'));
      }
    const settled = await settledItem(t, ALL_AGENTS);
    expect(settled?.['fromMs']).toBe(today - 4 * DAY);
    const perDay = [4, 3, 2, 1].map((daysAgo) => truth(today - daysAgo * DAY) - truth(today - (daysAgo - 1) * DAY));
    expect(decodeSlotCounts(settled?.['dayCounts'] as Uint8Array).map((c) => c.requestCount)).toEqual(perDay);
    expect(settled?.['toMs']).toBe(today);
    expect(isCurrent(settled)).toBe(true);
    expect(isCurrent(await settledItem(t, 'agt_2'))).toBe(true);

    // A settled item stored before it had each day's counts is recomputed once.
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: keys.rollupSettled(t, ALL_AGENTS), UpdateExpression: 'REMOVE dayCounts' }));
    expect(await count(ALL_AGENTS, today - 4 * DAY - 90 * MINUTE)).toBe(truth(today - 4 * DAY - 90 * MINUTE));
    expect((await settledItem(t, ALL_AGENTS))?.['dayCounts']).toBeDefined();

    // A late trace for a settled day: read from its minutes while its hour is dirty, then from the settled item recomputed.
    const late = trace('late', 'agt_1', today - 2 * DAY + 5 * HOUR, { status: 'error' });
    traces.push(late);
    await rollups().countTraces(t, late.startTimeMs, [late], EXPIRES);
    expect(await count(ALL_AGENTS, today - 4 * DAY)).toBe(truth(today - 4 * DAY));
    await compactAll(nowMs);
    expect(isCurrent(await settledItem(t, ALL_AGENTS))).toBe(false);
    expect(await count(ALL_AGENTS, today - 4 * DAY, [], 'error')).toBe(truth(today - 4 * DAY, (tr) => tr.status === 'error'));
    expect(await count('agt_1', today - 4 * DAY)).toBe(truth(today - 4 * DAY, (tr) => tr.agentId === 'agt_1'));
    expect(isCurrent(await settledItem(t, ALL_AGENTS))).toBe(true);

    // A day bucket recomputed while the sum is being read: the sum read before is not stored as current.
    const later = trace('later', 'agt_2', today - 3 * DAY + 7 * HOUR);
    traces.push(later);
    let raced = false;
    const racing: Db = {
      tableName: db.tableName,
      doc: {
        send: async (command: unknown) => {
          if (!raced && command instanceof QueryCommand && command.input.ConsistentRead) {
            raced = true;
            await rollups().countTraces(t, later.startTimeMs, [later], EXPIRES);
            await compactAll(nowMs);
          }
          return db.doc.send(command as QueryCommand);
        },
      } as Db['doc'],
    };
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.rollupSettled(t, 'agt_2') }));
    await rollupsRepository(racing, () => nowMs).settled(t, ['agt_2'], settledWindow(nowMs, RETENTION_DAYS));
    expect(raced).toBe(true);
    expect(isCurrent(await settledItem(t, 'agt_2'))).toBe(false);
    expect(await count(ALL_AGENTS, today - 4 * DAY, ['agt_1'])).toBe(truth(today - 4 * DAY, (tr) => tr.agentId !== 'agt_1'));
    expect(await count('agt_2', today - 4 * DAY)).toBe(truth(today - 4 * DAY, (tr) => tr.agentId === 'agt_2'));

    // A new day moves the window: recomputed once for it.
    nowMs = today + DAY + HOUR;
    const shifted = await finishedTraceCount({ store: { rollups: rollups() } }, t, ALL_AGENTS, {
      startMs: today - 3 * DAY,
      endMs: today + DAY,
      leaveOut: [],
      settled: settledWindow(nowMs, RETENTION_DAYS),
    });
    expect(shifted).toBe(traces.filter((tr) => tr.startTimeMs >= today - 3 * DAY).length);
    expect((await settledItem(t, ALL_AGENTS))?.['fromMs']).toBe(today - 3 * DAY);
  });

  it('give each agent its rollup over the retention: its settled days and today, as the buckets say', async () => {
    const t = newTenant();
    nowMs = today + 3 * HOUR;
    const traces = await seeded(t);
    await compactAll(nowMs);
    const deps = { store: { rollups: rollups(), agents: undefined as never }, clock: { now: () => new Date(nowMs) } };
    const from = settledWindow(nowMs, RETENTION_DAYS).fromMs;
    const expected = (agentId: string) => traces.filter((tr) => tr.agentId === agentId && tr.startTimeMs >= from && tr.startTimeMs < nowMs);
    const found = await agentRollups(deps, t, RETENTION_DAYS, ['agt_1', 'agt_2', 'agt_none']);
    for (const agentId of ['agt_1', 'agt_2'])
      expect(bytes(found.get(agentId) && withoutModels(found.get(agentId)!))).toEqual(bytes(withoutModels(rollupOf(expected(agentId)))));
    expect(found.get('agt_none')?.requestCount ?? 0).toBe(0);

    // While a past hour is dirty, the days come from the buckets: the same answer, the late trace in it.
    const late = trace('late', 'agt_1', today - DAY + 2 * HOUR);
    traces.push(late);
    await rollups().countTraces(t, late.startTimeMs, [late], EXPIRES);
    const dirty = await agentRollups(deps, t, RETENTION_DAYS, ['agt_1']);
    expect(bytes(withoutModels(dirty.get('agt_1')!))).toEqual(bytes(withoutModels(rollupOf(expected('agt_1')))));
  });
});
