import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
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
  ({ store, stop } = await startStore('aos-trace-list-deleted'));
});
afterAll(() => stop());

const now = new Date('2026-11-20T10:00:00Z');
const clock = { now: () => now };
const FIRST = { limit: 50, skip: 0 };

let tenants = 0;
/**
 * A tenant with agents a and b, two traces each (or `ofA` of a's; b's the newer unless `deletedOlder`),
 * complete but for those named `pending`, b deleted and its purge not run yet, listed once.
 */
async function tenantWithDeletedAgent({ deletedOlder = false, pending = [] as string[], ofA = 2, deleteB = true } = {}): Promise<string> {
  const tenantId = `tnt_deleted_${++tenants}`;
  await store.tenants.create({ id: tenantId, ownerUserId: 'usr_x', subscription: newTrialSubscription(now), createdAt: now.toISOString() });
  for (const [agentId, traces] of [
    ['agt_a', Array.from({ length: ofA }, (_, i) => `tr-a-${i + 1}`)],
    ['agt_b', ['tr-b-1', 'tr-b-2']],
  ] as const) {
    await store.agents.create(agentRecord(tenantId, agentId, now.toISOString()));
    for (const [i, traceId] of traces.entries()) {
      const minutesAgo = (agentId === 'agt_b') === deletedOlder ? 60 : 30;
      const startTimeMs = now.getTime() - minutesAgo * 60_000 + i * 1000;
      const summary = {
        ...summarizeTrace(spansOf(traceId, { input: 'q', steps: [llm('a')], output: 'a' })),
        agentId,
        startTimeMs,
        name: 'answer',
        ...(pending.includes(traceId) ? { complete: false } : {}),
      };
      await store.traces.putSummary(tenantId, summary, 1, 2_000_000_000);
    }
  }
  if (deleteB) await store.agents.delete(tenantId, 'agt_b');
  await list(store, tenantId); // this process knows where the tenant's lists begin, as it does after its first list (see listTraces)
  return tenantId;
}

/** The store, counting the trace pages it reads and the counts of pending traces it makes. */
function counting(): { store: Store; pages: () => number; pendingCounts: () => number } {
  let pages = 0;
  let pendingCounts = 0;
  const traces: Store['traces'] = Object.create(store.traces);
  traces.page = (...args) => {
    pages++;
    return store.traces.page(...args);
  };
  traces.count = (tenantId, q, states) => {
    if (states?.includes('pending')) pendingCounts++;
    return store.traces.count(tenantId, q, states);
  };
  return { store: { ...store, traces }, pages: () => pages, pendingCounts: () => pendingCounts };
}

const list = (s: Store, tenantId: string, query: Record<string, string> = {}, page = FIRST) =>
  listTraces(s, clock, tenantId, z.parse(traceListQuery, query), page);

describe("a trace list leaves out a deleted agent's traces", () => {
  it('while its purge has not run: the page read without leaving them out held some, so it is read again leaving them out', async () => {
    const tenantId = await tenantWithDeletedAgent();
    const { store: s, pages } = counting();
    const page = await list(s, tenantId);
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-a-2', 'tr-a-1']);
    expect(pages()).toBe(2);
  });

  it('once its traces are gone: the page read at once is the page, read once', async () => {
    const tenantId = await tenantWithDeletedAgent();
    for (const traceId of ['tr-b-1', 'tr-b-2']) await store.traces.deleteTrace(tenantId, traceId);
    const { store: s, pages } = counting();
    const page = await list(s, tenantId);
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-a-2', 'tr-a-1']);
    expect(pages()).toBe(1);
  });

  it("from the count of a free filter's first page too, even when the page holds none of them", async () => {
    const tenantId = await tenantWithDeletedAgent({ deletedOlder: true });
    const { store: s, pages } = counting();
    const page = await list(s, tenantId, { name: 'answer' }, { limit: 1, skip: 0 });
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-a-2']);
    expect(page).toMatchObject({ total: 2, totalExact: true });
    expect(pages()).toBe(2);
  });

  // The page is a's four newest; its read of the pending list, whose share is three, finds a's and b's
  // pending trace and the list's end. Written straight to the store, the finished traces are in no
  // rollup: the total is the pending traces'.
  it.each([
    { case: 'b deleted: counted apart, leaving b out, as the read did not', deleteB: true, total: 1, pendingCounts: 1 },
    { case: 'no agent deleted: what the page read to the end of their list', deleteB: false, total: 2, pendingCounts: 0 },
  ])('from the pending traces of a first page, $case', async ({ deleteB, total, pendingCounts: counted }) => {
    const tenantId = await tenantWithDeletedAgent({ deletedOlder: true, pending: ['tr-a-1', 'tr-b-2'], ofA: 5, deleteB });
    const { store: s, pendingCounts } = counting();
    const page = await list(s, tenantId, {}, { limit: 4, skip: 0 });
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-a-5', 'tr-a-4', 'tr-a-3', 'tr-a-2']);
    expect(page).toMatchObject({ total, totalExact: true });
    expect(pendingCounts()).toBe(counted);
  });

  it('and an agent filter reads its own list at once, once', async () => {
    const tenantId = await tenantWithDeletedAgent();
    const { store: s, pages } = counting();
    const page = await list(s, tenantId, { agentId: 'agt_a' });
    expect(page.items.map((t) => t.traceId)).toEqual(['tr-a-2', 'tr-a-1']);
    expect(pages()).toBe(1);
  });
});
