import { randomBytes } from 'node:crypto';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import { TABLE } from '#shared/store/table.ts';
import { startDynamo } from '../../support/dynamo.ts';
import { collectGarbage, type Elapsed, stopwatch } from '../stats.ts';

export interface RawRound {
  /** Spans in (or behind) the items written. */
  spans: number;
  items: number;
  elapsed: Elapsed;
}

type Item = Record<string, unknown>;

/** BatchWriteItem's limit, as the worker's putSpans sends them. */
const BATCH_WRITE_ITEMS = 25;
/** The attributes that place an item in the table or an index: a copy gets them with a fresh tenant id. */
const KEY_ATTRIBUTES: ReadonlySet<string> = new Set([
  TABLE.partitionKey,
  TABLE.sortKey,
  ...Object.values(TABLE.indexes).flatMap((index) => [index.partitionKey, index.sortKey]),
]);

/**
 * A fresh in-memory dynalite with the service's table, taking copies of items the service stored for
 * a tenant, each call's under a fresh tenant id of the same length, in BatchWriteItem calls (25 items
 * each, `writers` calls in flight), the copies made before the clock starts.
 */
export async function startRawBaseline(tenantId: string, writers: number) {
  const dynamo = await startDynamo('aos-bench-raw');
  return {
    /** Writes copies of `items`, which hold (or were stored for) `spans` spans. */
    async write(items: readonly Item[], spans: number): Promise<RawRound> {
      const copies = copiesFor(items, tenantId);
      collectGarbage();
      const elapsed = stopwatch();
      await writeConcurrently(dynamo.db, copies, writers);
      return { spans, items: copies.length, elapsed: elapsed() };
    },
    stop: () => dynamo.stop(),
  };
}

/** The items under a fresh tenant id of the same length, in every key attribute. */
function copiesFor(items: readonly Item[], tenantId: string): Item[] {
  const freshTenant = randomBytes(tenantId.length).toString('base64url').slice(0, tenantId.length);
  const rekeyed = (name: string, value: unknown) => (KEY_ATTRIBUTES.has(name) && typeof value === 'string' ? value.replaceAll(tenantId, freshTenant) : value);
  return items.map((item) => Object.fromEntries(Object.entries(item).map(([name, value]) => [name, rekeyed(name, value)])));
}

/** The items in batches of 25, `writers` batches in flight, like several worker invocations at once. */
async function writeConcurrently(db: Db, items: readonly Item[], writers: number): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += BATCH_WRITE_ITEMS) batches.push(items.slice(i, i + BATCH_WRITE_ITEMS));
  let next = 0;
  const writer = async () => {
    while (next < batches.length) await batchWrite(db, putRequests(batches[next++]!));
  };
  await Promise.all(Array.from({ length: writers }, writer));
}
