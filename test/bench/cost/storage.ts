import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#shared/store/client.ts';
import { indexesOf, itemSize, kindOf, STORAGE_OVERHEAD_BYTES } from './item-size.ts';

/** Average days in a month, as storage is billed per GB-month. */
export const MONTH_DAYS = 30.4375;
/** AWS bills storage per GB of 2^30 bytes. */
const BYTES_PER_GB = 2 ** 30;

/** The stored items of one kind, and how long they stay. */
export interface EntityStorage {
  items: number;
  averageItemBytes: number;
  /** Index entries per item (GSI1, GSI2; all attributes projected). */
  indexEntriesPerItem: number;
  /** Days until the TTL deletes them; items without one are counted for one month. */
  averageLifetimeDays: number;
  tableGbMonths: number;
  indexGbMonths: number;
}

/** Counted as stored for one month: they stay until deleted, so every month of them is billed. */
const KEPT_ITEM_DAYS = MONTH_DAYS;

function lifetimeDays(item: Record<string, unknown>, nowSeconds: number): number {
  const expiresAt = item['expiresAt'];
  return typeof expiresAt === 'number' ? Math.max(0, (expiresAt - nowSeconds) / 86_400) : KEPT_ITEM_DAYS;
}

async function* scanAll(db: Db): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new ScanCommand({ TableName: db.tableName, ExclusiveStartKey }));
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * Every item of the table by kind: its size by DynamoDB's rules plus the 100 bytes of overhead each
 * stored item and index entry carries, times the time its TTL keeps it, in GB-months.
 */
export async function measureStorage(db: Db, now = new Date()): Promise<Map<string, EntityStorage>> {
  const nowSeconds = now.getTime() / 1000;
  const sums = new Map<string, { items: number; bytes: number; indexEntries: number; days: number; tableByteMonths: number; indexByteMonths: number }>();
  for await (const item of scanAll(db)) {
    const kind = kindOf(item);
    const s = sums.get(kind) ?? sums.set(kind, { items: 0, bytes: 0, indexEntries: 0, days: 0, tableByteMonths: 0, indexByteMonths: 0 }).get(kind)!;
    const bytes = itemSize(item);
    const indexes = indexesOf(item).length;
    const months = lifetimeDays(item, nowSeconds) / MONTH_DAYS;
    s.items++;
    s.bytes += bytes;
    s.indexEntries += indexes;
    s.days += months * MONTH_DAYS;
    s.tableByteMonths += (bytes + STORAGE_OVERHEAD_BYTES) * months;
    s.indexByteMonths += indexes * (bytes + STORAGE_OVERHEAD_BYTES) * months;
  }
  return new Map(
    [...sums].map(([kind, s]) => [
      kind,
      {
        items: s.items,
        averageItemBytes: s.bytes / s.items,
        indexEntriesPerItem: s.indexEntries / s.items,
        averageLifetimeDays: s.days / s.items,
        tableGbMonths: s.tableByteMonths / BYTES_PER_GB,
        indexGbMonths: s.indexByteMonths / BYTES_PER_GB,
      },
    ]),
  );
}
