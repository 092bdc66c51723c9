import { randomBytes } from 'node:crypto';
import { TABLE } from '#shared/store/table.ts';
import { startDynamo } from '../../support/dynamo.ts';
import { writeInBatches } from '../batch-writes.ts';
import { collectGarbage, type Elapsed, stopwatch } from '../stats.ts';

export interface RawRound {
  /** Spans in (or behind) the items written. */
  spans: number;
  items: number;
  elapsed: Elapsed;
}

type Item = Record<string, unknown>;

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
      await writeInBatches(dynamo.db, copies, writers);
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
