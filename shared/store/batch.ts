import { BatchGetCommand, BatchWriteCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../domain/concurrency.ts';
import type { Db } from './client.ts';
import { TABLE } from './table.ts';

export const BATCH_WRITE_LIMIT = 25;
const BATCH_GET_LIMIT = 100;
const MAX_ATTEMPTS = 8;
/** Batch calls of one batchWrite or batchGet in flight at once. */
const CALLS_AT_ONCE = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Throttling backs off longer than a version race (`turns.ts`): capacity comes back in seconds. */
const backoff = (attempt: number) => sleep(Math.random() * Math.min(2000, 25 * 2 ** attempt));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Writes every request, 25 a call (several calls at once), retrying what DynamoDB leaves unprocessed
 * (throttling) with jittered exponential backoff; throws if some are still unprocessed after the last attempt.
 */
export async function batchWrite(db: Db, all: readonly WriteRequest[]): Promise<void> {
  await mapConcurrently(chunks(lastPerKey(all), BATCH_WRITE_LIMIT), CALLS_AT_ONCE, async (chunk) => {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`${pending.length} writes still unprocessed after ${MAX_ATTEMPTS} attempts`);
      if (attempt > 0) await backoff(attempt);
      const { UnprocessedItems } = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending as WriteRequest[] } }));
      pending = (UnprocessedItems?.[db.tableName] ?? []) as WriteRequest[];
    }
  });
}

/**
 * The items with these keys that exist (in no particular order), 100 keys a call (several calls at
 * once), retrying the keys DynamoDB leaves unprocessed like batchWrite; `consistent` for strongly consistent reads;
 * `attributes`: only these (and the keys).
 */
export async function batchGet(
  db: Db,
  keys: readonly Record<string, unknown>[],
  consistent = false,
  attributes?: readonly string[],
): Promise<Record<string, unknown>[]> {
  const projection = attributes && {
    ProjectionExpression: [TABLE.partitionKey, TABLE.sortKey, ...attributes].map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries([TABLE.partitionKey, TABLE.sortKey, ...attributes].map((name, i) => [`#p${i}`, name])),
  };
  const unique = [...new Map(keys.map((k) => [JSON.stringify([k[TABLE.partitionKey], k[TABLE.sortKey]]), k])).values()];
  const found = await mapConcurrently(chunks(unique, BATCH_GET_LIMIT), CALLS_AT_ONCE, async (chunk) => {
    const items: Record<string, unknown>[] = [];
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`${pending.length} reads still unprocessed after ${MAX_ATTEMPTS} attempts`);
      if (attempt > 0) await backoff(attempt);
      const { Responses, UnprocessedKeys } = await db.doc.send(
        new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: consistent, ...projection } } }),
      );
      items.push(...(Responses?.[db.tableName] ?? []));
      pending = UnprocessedKeys?.[db.tableName]?.Keys ?? [];
    }
    return items;
  });
  return found.flat();
}

export const chunks = <T>(all: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));

/**
 * BatchWriteItem refuses a call naming one key twice (two identical log records in a request have one
 * content id). Only the last request for a key counts, as it would if they were sent one by one.
 */
function lastPerKey(requests: readonly WriteRequest[]): WriteRequest[] {
  const byKey = new Map<string, WriteRequest>();
  for (const request of requests) {
    const key = 'PutRequest' in request ? request.PutRequest.Item : request.DeleteRequest.Key;
    const id = JSON.stringify([key[TABLE.partitionKey], key[TABLE.sortKey]]);
    byKey.delete(id);
    byKey.set(id, request);
  }
  return [...byKey.values()];
}

export const putRequests = (items: readonly Record<string, unknown>[]): WriteRequest[] => items.map((Item) => ({ PutRequest: { Item } }));

export const deleteRequests = (keys: readonly Record<string, unknown>[]): WriteRequest[] => keys.map((Key) => ({ DeleteRequest: { Key } }));

/**
 * Every item of a query, following pagination. Here and below paged by hand: lib-dynamodb's
 * `paginateQuery` takes only an instance of its client class, where the store takes any `send` (the
 * fault tests wrap it), and `queryUpTo` asks each page for what is left of its bound.
 */
export async function queryAll(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>) {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ TableName: db.tableName, ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * The items a query matches, following its pages until it has read `max` items (before its filter):
 * a read bounded whatever the list holds; `complete` when the list was read to its end.
 */
export async function queryUpTo(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>, max: number) {
  const items: Record<string, unknown>[] = [];
  let read = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ TableName: db.tableName, ...input, ExclusiveStartKey, Limit: max - read }));
    items.push(...(page.Items ?? []));
    read += page.ScannedCount ?? page.Items?.length ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && read < max);
  return { items, complete: ExclusiveStartKey === undefined };
}

/** How many items a query matches (after its filter), following pagination. */
export async function countAll(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'>) {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ TableName: db.tableName, ...input, Select: 'COUNT', ExclusiveStartKey }));
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}
