import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { queues } from '#shared/catalog.ts';
import { RateLimitedError, ServiceUnavailableError } from '#shared/domain/errors.ts';
import { createExport, type ExportRunner, MAX_ACTIVE_EXPORTS, runExport, SLOT_HOLD_MS } from '#shared/domain/lake/exports.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { QueuePort } from '#shared/domain/ports.ts';
import type { Store } from '#shared/domain/store.ts';
import { startStore } from '../support/dynamo.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-export-slots'));
});
afterAll(() => stop());

let now = new Date('2026-11-20T10:00:00Z');
const clock = { now: () => now };
const queue: QueuePort = { send: async () => {} };
const request = { format: 'jsonl' as const, startDate: new Date('2026-11-01T00:00:00Z'), endDate: new Date('2026-11-19T23:59:59.999Z') };
const ports = () => ({ store, queue, clock, ids: randomIds });
const runner: ExportRunner = {
  run: async () => ({ rows: 0, bytes: 0, location: 'nowhere' }),
  link: async () => ({ url: 'nowhere', expiresAt: 0 }),
  download: async () => ({ redirect: 'nowhere' }),
};

let n = 0;
async function tenant(): Promise<string> {
  const id = `tnt_slots_${++n}`;
  await store.tenants.create({ id, ownerUserId: 'usr_x', subscription: newTrialSubscription(now), createdAt: now.toISOString() });
  return id;
}

/** Asks for `count` exports at once: the ids of those queued, and how many were refused as over the limit. */
async function askAtOnce(tenantId: string, count: number) {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, () => createExport(tenantId, request, ports())));
  const refused = outcomes.filter((o) => o.status === 'rejected');
  for (const o of refused) expect((o as PromiseRejectedResult).reason).toBeInstanceOf(RateLimitedError);
  return { queued: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.id] : [])), refused: refused.length };
}

describe("a tenant's export slots", () => {
  it('queue at most MAX_ACTIVE_EXPORTS exports asked for at once (a count read before writing let six of eight in)', async () => {
    const t = await tenant();
    const { queued, refused } = await askAtOnce(t, 8);
    expect(queued).toHaveLength(MAX_ACTIVE_EXPORTS);
    expect(refused).toBe(8 - MAX_ACTIVE_EXPORTS);
    await expect(createExport(t, request, ports())).rejects.toThrow(`${MAX_ACTIVE_EXPORTS} exports are already queued or running`);
  });

  it('come back when an export finishes, or when its export stopped without giving its slot back', async () => {
    const t = await tenant();
    const { queued } = await askAtOnce(t, MAX_ACTIVE_EXPORTS);
    await runExport({ kind: 'export', tenantId: t, exportId: queued[0]! }, { store, exportRunner: runner, clock, reportError: () => {} });
    expect((await store.exports.get(t, queued[0]!))?.status).toBe('succeeded');
    expect((await askAtOnce(t, 2)).queued).toHaveLength(1);

    // A worker that marked its export failed and stopped before giving the slot back.
    const stuck = (await store.exports.get(t, queued[1]!))!;
    expect(await store.exports.replaceIfStatus({ ...stuck, status: 'failed' }, 'queued')).toBe(true);
    expect((await askAtOnce(t, 2)).queued).toHaveLength(1);
  });

  it('stay taken while another export is being written (a claim made before its record was written passed for given back, and let a fourth in)', async () => {
    const t = await tenant();
    await askAtOnce(t, MAX_ACTIVE_EXPORTS - 1);
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slowRecord: Store = { ...store, exports: { ...store.exports, create: async (record) => gate.then(() => store.exports.create(record)) } };
    const slow = createExport(t, request, { ...ports(), store: slowRecord });
    // Time for what comes before the held write (the old order claimed its slot there) to finish.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const fourth = await Promise.allSettled([createExport(t, request, ports())]);
    open();
    const outcomes = [...fourth, ...(await Promise.allSettled([slow]))];
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const queued = (await store.exports.page(t, 20)).filter((e) => e.status === 'queued');
    expect(queued).toHaveLength(MAX_ACTIVE_EXPORTS);
    expect((await store.exports.slots(t)).map((s) => s.exportId).sort()).toEqual(queued.map((e) => e.id).sort());
  });

  it("can be taken when given back between reading them and claiming one (a claim on the holder's id alone found no item)", async () => {
    const t = await tenant();
    const { queued } = await askAtOnce(t, MAX_ACTIVE_EXPORTS);
    const finished = (await store.exports.get(t, queued[0]!))!;
    expect(await store.exports.replaceIfStatus({ ...finished, status: 'succeeded' }, 'queued')).toBe(true);
    // Its worker gives the slot back just after the new export read the slots.
    const givenBackMeanwhile: Store = {
      ...store,
      exports: {
        ...store.exports,
        slots: async (tenantId) => {
          const read = await store.exports.slots(tenantId);
          const held = read.find((slot) => slot.exportId === finished.id);
          if (held) await store.exports.releaseSlot(tenantId, held);
          return read;
        },
      },
    };
    await expect(createExport(t, request, { ...ports(), store: givenBackMeanwhile })).resolves.toMatchObject({ status: 'queued' });
  });

  it('come back once a hold runs out, for an export whose worker never finished it, and not before its queue stops delivering it', async () => {
    const lake = queues.find((q) => q.id === 'lake')!;
    expect(SLOT_HOLD_MS).toBeGreaterThan(lake.visibilityTimeoutSeconds * lake.maxReceiveCount * 1000);
    const t = await tenant();
    expect((await askAtOnce(t, MAX_ACTIVE_EXPORTS)).queued).toHaveLength(MAX_ACTIVE_EXPORTS);
    now = new Date(now.getTime() + lake.visibilityTimeoutSeconds * lake.maxReceiveCount * 1000);
    expect((await askAtOnce(t, 1)).queued).toHaveLength(0);
    now = new Date(now.getTime() + SLOT_HOLD_MS);
    expect((await askAtOnce(t, 5)).queued).toHaveLength(MAX_ACTIVE_EXPORTS);
  });

  it('are given back when the export cannot be queued', async () => {
    const t = await tenant();
    const down: QueuePort = {
      send: async () => {
        throw new Error('queue down');
      },
    };
    for (let i = 0; i < MAX_ACTIVE_EXPORTS + 2; i++)
      await expect(createExport(t, request, { ...ports(), queue: down })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await store.exports.slots(t)).toEqual([]);
    expect((await askAtOnce(t, MAX_ACTIVE_EXPORTS)).queued).toHaveLength(MAX_ACTIVE_EXPORTS);

    // The slot is given back even when the record cannot be deleted, and the answer stays 503.
    const other = await tenant();
    const deleteFails: Store = {
      ...store,
      exports: {
        ...store.exports,
        delete: async () => {
          throw new Error('table unavailable');
        },
      },
    };
    await expect(createExport(other, request, { ...ports(), store: deleteFails, queue: down })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await store.exports.slots(other)).toEqual([]);
  });
});
