import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { bucketStart } from '#shared/domain/analytics/buckets.ts';
import type { PageInput } from '#shared/domain/paging/page.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { listTraces } from '#shared/domain/spans/queries.ts';
import { summarizeTrace } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import { traceListQuery } from '#shared/schemas/routes/spans.ts';
import { llm, spansOf } from '../fixtures/judge/build.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-trace-count-ahead'));
});
afterAll(() => stop());

const EXPIRES = 2_000_000_000;
const FIRST = { limit: 50, skip: 0 };
let nowMs = Date.parse('2026-11-20T10:00:20Z');
const clock = { now: () => new Date(nowMs) };

let tenants = 0;
/** A tenant with agents a and b, two finished traces each, counted in the rollups. */
async function tenantWithTraces(): Promise<string> {
  const tenantId = `tnt_ahead_${++tenants}`;
  const at = new Date(nowMs);
  await store.tenants.create({ id: tenantId, ownerUserId: 'usr_x', subscription: newTrialSubscription(at), createdAt: at.toISOString() });
  for (const agentId of ['agt_a', 'agt_b']) {
    await store.agents.create(agentRecord(tenantId, agentId, at.toISOString()));
    for (const i of [1, 2]) {
      const startTimeMs = nowMs - (agentId === 'agt_a' ? 30 : 90) * 60_000 + i * 1000;
      const summary = { ...summarizeTrace(spansOf(`tr-${agentId}-${i}`, { input: 'q', steps: [llm('a')], output: 'a' })), agentId, startTimeMs };
      await store.traces.putSummary(tenantId, summary, 1, EXPIRES);
      await store.rollups.countTraces(tenantId, bucketStart(startTimeMs, 'minute'), [summary], EXPIRES);
    }
  }
  return tenantId;
}

/**
 * The store, noting in order when a count of the rollups starts and when the read of the hours not
 * recomputed yet (one of the reads that decide what the count reads) answers; `beforeDirtyHours`
 * runs once the counts started so far have read, before that read.
 */
function noting(beforeDirtyHours?: () => Promise<void>): { store: Store; events: string[] } {
  const events: string[] = [];
  const counts: Array<Promise<unknown>> = [];
  const rollups: Store['rollups'] = Object.create(store.rollups);
  rollups.counts = (...args) => {
    events.push('count');
    const count = store.rollups.counts(...args);
    counts.push(count);
    return count;
  };
  rollups.dirtyHoursAndRecomputes = async (tenantId) => {
    if (beforeDirtyHours) {
      await Promise.all(counts);
      await beforeDirtyHours();
    }
    const read = await store.rollups.dirtyHoursAndRecomputes(tenantId);
    events.push('dirty hours read');
    return read;
  };
  return { store: { ...store, rollups }, events };
}

/** A finished trace of agent a that started at `startTimeMs`, stored and counted in its minute. */
async function addTrace(tenantId: string, traceId: string, startTimeMs: number): Promise<void> {
  const summary = { ...summarizeTrace(spansOf(traceId, { input: 'q', steps: [llm('a')], output: 'a' })), agentId: 'agt_a', startTimeMs };
  await store.traces.putSummary(tenantId, summary, 1, EXPIRES);
  await store.rollups.countTraces(tenantId, bucketStart(startTimeMs, 'minute'), [summary], EXPIRES);
}

/** Recomputes every dirty hour that has settled: the store's writers run on the real clock, so all of the tests' hours have. */
const compact = () => store.rollups.compactDirty(100, async () => EXPIRES, Date.now());

const list = (s: Store, tenantId: string, page: PageInput = FIRST) => listTraces(s, clock, tenantId, z.parse(traceListQuery, {}), page);

describe('a trace total asked again reads the rollups at once', () => {
  it('with the plan of the last count of the same list, kept when the plan decided now is the same', async () => {
    const tenantId = await tenantWithTraces();
    const first = noting();
    expect(await list(first.store, tenantId)).toMatchObject({ total: 4, totalExact: true });
    expect(first.events).toEqual(['dirty hours read', 'count']);
    const again = noting();
    expect(await list(again.store, tenantId)).toMatchObject({ total: 4, totalExact: true });
    expect(again.events).toEqual(['count', 'dirty hours read']);
  });

  it('for a range that runs far into the future too, counted by the rollups up to now: once, at once', async () => {
    const tenantId = await tenantWithTraces();
    const far = (s: Store) => listTraces(s, clock, tenantId, z.parse(traceListQuery, { endDate: '2099-12-31' }), FIRST);
    expect(await far(store)).toMatchObject({ total: 4, totalExact: true });
    const again = noting();
    expect(await far(again.store)).toMatchObject({ total: 4, totalExact: true });
    expect(again.events).toEqual(['count', 'dirty hours read']);
  });

  it('a minute later too: a range open at its end ends with the minute asked in', async () => {
    const tenantId = await tenantWithTraces();
    await list(store, tenantId);
    nowMs += 60_000;
    const later = noting();
    expect(await list(later.store, tenantId)).toMatchObject({ total: 4, totalExact: true });
    expect(later.events).toEqual(['count', 'dirty hours read']);
  });

  it("a first page's plan is kept apart from a later page's, whose range ends with the newest finished trace", async () => {
    const tenantId = await tenantWithTraces();
    const first = await list(store, tenantId, { limit: 2, skip: 0 });
    await list(store, tenantId, { limit: 2, skip: 0, after: first.next! });
    const again = noting();
    expect(await list(again.store, tenantId, { limit: 2, skip: 0 })).toMatchObject({ total: 4, totalExact: true });
    expect(again.events).toEqual(['count', 'dirty hours read']);
  });

  it('and reads them again when the plan changed: an agent deleted since is left out of the count', async () => {
    const tenantId = await tenantWithTraces();
    await list(store, tenantId);
    await store.agents.delete(tenantId, 'agt_b');
    const after = noting();
    const page = await list(after.store, tenantId);
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-agt_a-2', 'tr-agt_a-1']);
    expect(page).toMatchObject({ total: 2, totalExact: true });
    expect(after.events).toEqual(['count', 'dirty hours read', 'count']);
  });

  it('and reads them again when an hour was recomputed meanwhile: a trace that came late into it is counted', async () => {
    const tenantId = await tenantWithTraces();
    await compact();
    expect(await list(store, tenantId)).toMatchObject({ total: 4, totalExact: true });
    // The hour of a's traces, recomputed (so not among the dirty hours) before and after the late
    // trace, between the read ahead of its buckets and the read of the dirty hours.
    const late = noting(async () => {
      await addTrace(tenantId, 'tr-late', nowMs - 20 * 60_000);
      await compact();
    });
    expect(await list(late.store, tenantId)).toMatchObject({ total: 5, totalExact: true });
    expect(late.events).toEqual(['count', 'dirty hours read', 'count']);
  });
});
