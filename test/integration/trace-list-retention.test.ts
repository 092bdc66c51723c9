import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { bucketStart } from '#shared/domain/analytics/buckets.ts';
import type { PageInput } from '#shared/domain/paging/page.ts';
import type { PlanKey } from '#shared/domain/plans/plans.ts';
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
  ({ store, stop } = await startStore('aos-trace-list-retention'));
});
afterAll(() => stop());

const DAY_MS = 86_400_000;
const EXPIRES = 2_000_000_000;
const NOW = Date.parse('2026-11-20T10:00:20Z');
let nowMs = NOW;
const clock = { now: () => new Date(nowMs) };
const FIRST: PageInput = { limit: 50, skip: 0 };

/** A trial keeps 14 days (today and the 13 before), pro 90: a trial's lists begin on this day. */
const TRIAL_WINDOW_START = Date.parse('2026-11-07T00:00:00Z');
/** Finished traces by how long ago they started: the first trace of a trial's window and the last before it among them. */
const AGES = {
  hour: 3_600_000,
  days10: 10 * DAY_MS,
  trialFirst: NOW - TRIAL_WINDOW_START,
  beforeTrial: NOW - TRIAL_WINDOW_START + 1,
  days20: 20 * DAY_MS,
  days100: 100 * DAY_MS,
};
const traceIdOf = (age: keyof typeof AGES) => `tr-${age}`;

const createTenant = (tenantId: string, plan: PlanKey) =>
  store.tenants.create({
    id: tenantId,
    ownerUserId: 'usr_x',
    subscription: { ...newTrialSubscription(new Date(nowMs)), plan },
    createdAt: new Date(nowMs).toISOString(),
  });

let tenants = 0;
/** A tenant of the plan with one finished trace of each age, counted in the rollups, none expired yet (a trace expires a retention after it was received). */
async function tenantOn(plan: PlanKey): Promise<string> {
  const tenantId = `tnt_retention_${++tenants}`;
  await createTenant(tenantId, plan);
  await store.agents.create(agentRecord(tenantId, 'agt_a', new Date(nowMs).toISOString()));
  for (const age of Object.keys(AGES) as Array<keyof typeof AGES>) {
    const startTimeMs = nowMs - AGES[age];
    const summary = {
      ...summarizeTrace(spansOf(traceIdOf(age), { input: 'q', steps: [llm('a')], output: 'a' })),
      agentId: 'agt_a',
      startTimeMs,
      name: 'answer',
      userId: 'usr_1',
    };
    await store.traces.putSummary(tenantId, summary, 1, EXPIRES);
    await store.rollups.countTraces(tenantId, bucketStart(startTimeMs, 'minute'), [summary], EXPIRES);
  }
  return tenantId;
}

/** The store, counting the trace pages it reads. */
function countingPages(): { store: Store; pages: () => number } {
  let pages = 0;
  const traces: Store['traces'] = Object.create(store.traces);
  traces.page = (...args) => {
    pages++;
    return store.traces.page(...args);
  };
  return { store: { ...store, traces }, pages: () => pages };
}

const list = (tenantId: string, query: Record<string, string> = {}, page = FIRST, s = store) =>
  listTraces(s, clock, tenantId, z.parse(traceListQuery, query), page);
const idsOf = (page: { items: Array<{ traceId: string }> }) => page.items.map((t) => t.traceId);

/** What `ask` answers with the clock at `iso`; the clock is put back after. */
async function asOf<T>(iso: string, ask: () => Promise<T>): Promise<T> {
  nowMs = Date.parse(iso);
  try {
    return await ask();
  } finally {
    nowMs = NOW;
  }
}

describe("a trace list shows the plan's retention window", () => {
  it("a trial's lists begin 13 days before today: older traces are neither listed nor counted, on its first list in this process and after", async () => {
    const tenantId = await tenantOn('trial');
    // First read from the longest retention's window and again from the plan's, then from the plan's at once.
    for (const pagesRead of [2, 1]) {
      const { store: s, pages } = countingPages();
      const page = await list(tenantId, {}, FIRST, s);
      expect(idsOf(page)).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst')]);
      expect(page).toMatchObject({ total: 3, totalExact: true, hasMore: false });
      expect(pages()).toBe(pagesRead);
    }
  });

  it('pro keeps 90 days', async () => {
    const tenantId = await tenantOn('pro');
    const page = await list(tenantId);
    expect(idsOf(page)).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst'), traceIdOf('beforeTrial'), traceIdOf('days20')]);
    expect(page).toMatchObject({ total: 5, totalExact: true });
  });

  it('a plan whose window grew since this process last listed the tenant: the page is read again from the new window', async () => {
    const tenantId = await tenantOn('trial');
    expect(idsOf(await list(tenantId))).toHaveLength(3);
    await store.tenants.delete(tenantId);
    await createTenant(tenantId, 'pro');
    const page = await list(tenantId);
    expect(idsOf(page)).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst'), traceIdOf('beforeTrial'), traceIdOf('days20')]);
    expect(page).toMatchObject({ total: 5, totalExact: true });
  });

  it('a start date before the window starts at the window; walked one by one by cursor and by skip, the list ends at it', async () => {
    const tenantId = await tenantOn('trial');
    const query = { startDate: new Date(nowMs - 50 * DAY_MS).toISOString() };
    const byCursor: string[] = [];
    let after: string | undefined;
    do {
      const page = await list(tenantId, query, { limit: 1, skip: 0, ...(after ? { after } : {}) });
      expect(page).toMatchObject({ total: 3, totalExact: true });
      byCursor.push(...idsOf(page));
      after = page.next;
    } while (after);
    expect(byCursor).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst')]);
    const bySkip = await Promise.all([0, 1, 2, 3].map((skip) => list(tenantId, query, { limit: 1, skip })));
    expect(bySkip.map(idsOf)).toEqual([[traceIdOf('hour')], [traceIdOf('days10')], [traceIdOf('trialFirst')], []]);
    for (const page of bySkip) expect(page).toMatchObject({ total: 3, totalExact: true });
  });

  it('a walk by cursor keeps the window it began in: across midnight UTC it still ends with the day that left the window', async () => {
    const tenantId = await tenantOn('trial');
    const walked: string[] = [];
    let after: string | undefined;
    try {
      do {
        const page = await list(tenantId, {}, { limit: 1, skip: 0, ...(after ? { after } : {}) });
        expect(page).toMatchObject({ total: 3, totalExact: true });
        walked.push(...idsOf(page));
        after = page.next;
        nowMs = Date.parse('2026-11-21T00:00:01Z'); // the rest of the walk after midnight, when the window begins on 2026-11-08
      } while (after);
      expect(walked).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst')]);
      const anew = await list(tenantId);
      expect(idsOf(anew)).toEqual([traceIdOf('hour'), traceIdOf('days10')]);
      expect(anew).toMatchObject({ total: 2, totalExact: true });
    } finally {
      nowMs = NOW;
    }
  });

  it.each([
    {
      case: "a cursor's position without the walk's window (issued before positions carried it) continues in the window of the day it is used",
      issuedBefore: true,
      at: '2026-11-21T00:00:01Z',
    },
    {
      case: 'a walk kept going for days keeps a window a day older than the day’s at most (two midnights later, 2026-11-08 on, not 2026-11-07)',
      issuedBefore: false,
      at: '2026-11-22T00:00:01Z',
    },
  ])('$case', async ({ issuedBefore, at }) => {
    const tenantId = await tenantOn('trial');
    const first = issuedBefore ? await store.traces.page(tenantId, {}, { limit: 1, skip: 0 }) : await list(tenantId, {}, { limit: 1, skip: 0 });
    const page = await asOf(at, () => list(tenantId, {}, { limit: 5, skip: 0, after: first.next! }));
    expect(idsOf(page)).toEqual([traceIdOf('days10')]);
    expect(page).toMatchObject({ total: 2, totalExact: true, hasMore: false });
  });

  it('after the compaction too: the settled days count the window, and a walk across midnight counts the day that left from its day bucket', async () => {
    const tenantId = await tenantOn('trial');
    while ((await store.rollups.compactDirty(100, async () => EXPIRES, nowMs)) === 100);
    // Past days recomputed (the last hour is left to the next run: it has only just ended), so they are read from the settled item.
    expect((await store.rollups.dirtyHoursAndRecomputes(tenantId)).hours.every((hour) => hour >= bucketStart(NOW, 'day'))).toBe(true);
    const first = await list(tenantId, {}, { limit: 1, skip: 0 });
    expect(first).toMatchObject({ total: 3, totalExact: true });
    const [rest, anew] = await asOf('2026-11-21T00:00:01Z', () => Promise.all([list(tenantId, {}, { limit: 5, skip: 0, after: first.next! }), list(tenantId)]));
    expect(idsOf(rest)).toEqual([traceIdOf('days10'), traceIdOf('trialFirst')]);
    expect(rest).toMatchObject({ total: 3, totalExact: true, hasMore: false });
    expect(anew).toMatchObject({ total: 2, totalExact: true });
  });

  it('a range that runs far into the future ("no end") is counted exactly: the rollups up to now, its lists after', async () => {
    const tenantId = `tnt_retention_${++tenants}`;
    await createTenant(tenantId, 'pro');
    // More than a list count reads (250), spread over the last day, and one whose client's clock runs two days ahead.
    const starts = [...Array.from({ length: 300 }, (_, i) => nowMs - 1_000 - i * 250_000), nowMs + 2 * DAY_MS];
    for (const [i, startTimeMs] of starts.entries()) {
      const summary = { ...summarizeTrace(spansOf(`tr-far-${i}`, { input: 'q', steps: [llm('a')], output: 'a' })), startTimeMs, name: 'answer' };
      await store.traces.putSummary(tenantId, summary, 1, EXPIRES);
      await store.rollups.countTraces(tenantId, bucketStart(startTimeMs, 'minute'), [summary], EXPIRES);
    }
    for (const endDate of ['2099-12-31', new Date(nowMs + 500 * DAY_MS).toISOString()]) {
      expect(await list(tenantId, { endDate }), endDate).toMatchObject({ total: starts.length, totalExact: true });
    }
    expect(await list(tenantId, { endDate: new Date(nowMs + DAY_MS).toISOString() })).toMatchObject({ total: starts.length - 1, totalExact: true });
    // A range that starts ahead too counts from its own start, not from now.
    expect(await list(tenantId, { startDate: new Date(nowMs + 3 * DAY_MS).toISOString(), endDate: '2099-12-31' })).toMatchObject({
      items: [],
      total: 0,
      totalExact: true,
    });
  });

  it('a range that ends before the window holds nothing', async () => {
    const tenantId = await tenantOn('trial');
    const page = await list(tenantId, { endDate: new Date(TRIAL_WINDOW_START - 1).toISOString() });
    expect(page).toMatchObject({ items: [], total: 0, totalExact: true, hasMore: false });
  });

  it('filters narrow the window the same way: an agent, a status, a user, a free filter', async () => {
    const tenantId = await tenantOn('trial');
    for (const query of [{ agentId: 'agt_a' }, { status: 'ok' }, { userId: 'usr_1' }, { name: 'answer' }] as Array<Record<string, string>>) {
      const page = await list(tenantId, query);
      expect(idsOf(page), JSON.stringify(query)).toEqual([traceIdOf('hour'), traceIdOf('days10'), traceIdOf('trialFirst')]);
      expect(page.total, JSON.stringify(query)).toBe(3);
    }
  });
});
