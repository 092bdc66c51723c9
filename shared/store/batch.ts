import { BatchGetCommand, BatchWriteCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './client.ts';
import { TABLE } from './table.ts';

const BATCH_WRITE_LIMIT = 25;
const MAX_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Writes every request, 25 at a time, retrying what DynamoDB leaves unprocessed (throttling) with
 * jittered exponential backoff; throws if some are still unprocessed after the last attempt.
 */
export async function batchWrite(db: Db, all: readonly WriteRequest[]): Promise<void> {
  const requests = lastPerKey(all);
  for (let i = 0; i < requests.length; i += BATCH_WRITE_LIMIT) {
    let pending = requests.slice(i, i + BATCH_WRITE_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`${pending.length} writes still unprocessed after ${MAX_ATTEMPTS} attempts`);
      if (attempt > 0) await sleep(Math.random() * Math.min(2000, 25 * 2 ** attempt));
      const { UnprocessedItems } = await db.doc.send(
        new BatchWriteCommand({ RequestItems: { [db.tableName]: pending as WriteRequest[] } }),
      );
      pending = (UnprocessedItems?.[db.tableName] ?? []) as WriteRequest[];
    }
  }
}

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

export const putRequests = (items: readonly Record<string, unknown>[]): WriteRequest[] =>
  items.map((Item) => ({ PutRequest: { Item } }));

export const deleteRequests = (keys: readonly Record<string, unknown>[]): WriteRequest[] =>
  keys.map((Key) => ({ DeleteRequest: { Key } }));

/** `fn` of every item, at most `limit` running at once; the results in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Every item of a query, following pagination. */
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

const BATCH_GET_LIMIT = 100;

/** The items of these keys that exist (in no particular order), 100 keys a call, retrying what DynamoDB leaves unprocessed. */
export async function batchGet(db: Db, keys: readonly Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
    let pending: Record<string, unknown>[] = keys.slice(i, i + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`${pending.length} reads still unprocessed after ${MAX_ATTEMPTS} attempts`);
      if (attempt > 0) await sleep(Math.random() * Math.min(2000, 25 * 2 ** attempt));
      const { Responses, UnprocessedKeys } = await db.doc.send(new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending } } }));
      found.push(...(Responses?.[db.tableName] ?? []));
      pending = (UnprocessedKeys?.[db.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}
