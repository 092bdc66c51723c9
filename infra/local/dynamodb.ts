import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ResourceNotFoundException,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE } from '#shared/store/table.ts';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS } from './local-account.ts';
import { origin } from './servers.ts';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  stop(): Promise<void>;
}

const DYNALITE_THREAD = new URL('./dynalite-thread.js', import.meta.url);
/**
 * The dynalite thread's V8 old generation, in MB: its live data is the requests in flight (LevelDB
 * holds the table on disk), about 50 MB of heap while 200,000 spans were ingested; V8's default limit
 * (about 4 GB on a 24 GB machine) would let garbage pile up to far more before collecting it.
 */
const DYNALITE_OLD_GENERATION_MB = 256;
/**
 * The dynalite thread's V8 young generation, in MB (three semi-spaces of 4 MB, two of them the new
 * space): its new space then holds 8 MB where V8's default grew it to 32 MB (heap space statistics
 * over 40,000 spans), and its old space stayed at 16–19 MB either way, so no more was promoted. Its
 * short-lived garbage is requests' JSON; the ingest bench's end-to-end rate did not suffer: 365 and
 * 403 spans/s against 330 and 378 with the default (two runs each, alternated).
 */
const DYNALITE_YOUNG_GENERATION_MB = 12;
/**
 * The block size of dynalite's LevelDB table files. LevelDB keeps the index block of every table file
 * it holds open (up to 990) on the heap, one entry per data block: with its default of 4 KB, those
 * indexes held 40 MB at 400,000 spans and grew with the data (heaptrack; docs/local-runtime.md,
 * "Memory"). With 16 KB blocks an index has about a quarter of the entries where items are small (an
 * item larger than a block still takes a block of its own). The reads bench at a million traces
 * showed no consistent difference from 4 KB blocks (one run each; docs/local-runtime.md).
 */
const LEVELDB_BLOCK_BYTES = 16 * 1024;

/**
 * dynalite on a loopback ephemeral port, in a worker thread of its own so that its work runs on
 * another core than the event loop that serves the API and runs the handlers: LevelDB under `dir`
 * when given (data survives restarts), else in memory. A failure of the thread after it started is
 * not caught here: like a crash of the store, it ends the process.
 */
export async function startDynamoDb(dir?: string): Promise<LocalDynamoDb> {
  if (dir) await mkdir(dir, { recursive: true });
  const options = { ...(dir ? { path: dir } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
  // None of the main thread's flags (tsx's loader would only slow the thread's start), but a CPU profile covers it too.
  const thread = new Worker(DYNALITE_THREAD, {
    workerData: { options, levelOptions: { blockSize: LEVELDB_BLOCK_BYTES } },
    execArgv: process.execArgv.filter((a) => a.startsWith('--cpu-prof')),
    resourceLimits: { maxOldGenerationSizeMb: DYNALITE_OLD_GENERATION_MB, maxYoungGenerationSizeMb: DYNALITE_YOUNG_GENERATION_MB },
  });
  const port = await new Promise<number>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    const exited = (code: number) => reject(new Error(`dynalite's thread exited (code ${code}) before it listened`));
    thread.once('error', failed).once('exit', exited);
    thread.once('message', (message: { port: number }) => {
      thread.off('error', failed).off('exit', exited);
      resolve(message.port);
    });
  });
  const endpoint = origin('127.0.0.1', port);
  const client = new DynamoDBClient({ endpoint, region: LOCAL_ACCOUNT.region, credentials: LOCAL_CREDENTIALS });
  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    client,
    stop: () =>
      (stopped ??= (async () => {
        client.destroy();
        const closed = new Promise<{ error?: string }>((resolve) => thread.once('message', resolve));
        const exited = new Promise((resolve) => thread.once('exit', resolve));
        thread.postMessage('stop');
        const { error } = await closed;
        await exited;
        if (error) throw new Error(`dynalite did not close cleanly: ${error}`);
      })()),
  };
}

/**
 * The local table's name carries a fingerprint of its schema. dynalite cannot add an index to an
 * existing table, so when `TABLE` changes, a new table is created and the items of the old one are
 * copied into it: a data directory from an earlier version keeps its data.
 */
export function localTableName(prefix: string): string {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(createTableInput(prefix)))
    .digest('hex')
    .slice(0, 8);
  return `${prefix}-${fingerprint}`;
}

export async function ensureTable(client: DynamoDBClient, tableName: string, prefix: string): Promise<void> {
  if ((await tableStatus(client, tableName)) === undefined) {
    await createActiveTable(client, createTableInput(tableName));
    const { TableNames = [] } = await client.send(new ListTablesCommand({}));
    for (const old of TableNames.filter((n) => n !== tableName && n.startsWith(`${prefix}-`))) {
      await copyItems(client, old, tableName);
      await client.send(new DeleteTableCommand({ TableName: old }));
    }
  }
  await waitUntilActive(client, tableName);
}

/**
 * Creates a table and answers once it can be written: dynalite, like DynamoDB, answers CreateTable
 * while the table is still CREATING, and a write then is refused as ResourceNotFoundException (even
 * with `createTableMs: 0`, the table turns ACTIVE in a later turn of dynalite's event loop).
 */
export async function createActiveTable(client: DynamoDBClient, input: CreateTableCommandInput & { TableName: string }): Promise<void> {
  await client.send(new CreateTableCommand(input));
  await waitUntilActive(client, input.TableName);
}

/** dynalite turns a table ACTIVE in milliseconds; a table that is not by then never will be. */
const TABLE_ACTIVE_TIMEOUT_MS = 10_000;

/** Polls DescribeTable every 10 ms until the table is ACTIVE, and fails naming it after TABLE_ACTIVE_TIMEOUT_MS. */
async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + TABLE_ACTIVE_TIMEOUT_MS;
  while ((await tableStatus(client, tableName)) !== 'ACTIVE') {
    if (Date.now() > deadline) throw new Error(`the local table ${tableName} was not ACTIVE after ${TABLE_ACTIVE_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function copyItems(client: DynamoDBClient, from: string, to: string): Promise<void> {
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: from, ExclusiveStartKey }));
    for (const Item of page.Items ?? []) await client.send(new PutItemCommand({ TableName: to, Item }));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table?.TableStatus;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return undefined;
    throw err;
  }
}

/**
 * What DynamoDB TTL does on AWS (dynalite has no TTL): delete every item whose TTL attribute, in epoch
 * seconds, is in the past. Each delete re-checks the attribute, so an item refreshed meanwhile survives.
 * Returns how many items were deleted.
 */
export async function sweepExpiredItems(client: DynamoDBClient, tableName: string, now = new Date()): Promise<number> {
  let deleted = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await sweepExpiredPage(client, tableName, startKey, undefined, now);
    deleted += page.deleted;
    startKey = page.nextKey;
  } while (startKey);
  return deleted;
}

/**
 * One page of the sweep: scans at most `limit` items from `startKey` (the table's start when absent),
 * deletes the expired ones, and answers where the next page starts (none at the table's end).
 */
export async function sweepExpiredPage(
  client: DynamoDBClient,
  tableName: string,
  startKey: Record<string, AttributeValue> | undefined,
  limit: number | undefined,
  now = new Date(),
): Promise<{ deleted: number; nextKey?: Record<string, AttributeValue> }> {
  const expiredBefore = {
    ConditionExpression: '#ttl < :now',
    ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
    ExpressionAttributeValues: { ':now': { N: String(Math.floor(now.getTime() / 1000)) } },
  };
  const { partitionKey, sortKey } = TABLE;
  const page = await client.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: expiredBefore.ConditionExpression,
      ExpressionAttributeNames: { ...expiredBefore.ExpressionAttributeNames, '#pk': partitionKey, '#sk': sortKey },
      ExpressionAttributeValues: expiredBefore.ExpressionAttributeValues,
      ProjectionExpression: '#pk, #sk',
      ExclusiveStartKey: startKey,
      ...(limit === undefined ? {} : { Limit: limit }),
    }),
  );
  let deleted = 0;
  for (const key of page.Items ?? []) {
    try {
      await client.send(new DeleteItemCommand({ TableName: tableName, Key: key, ...expiredBefore }));
      deleted++;
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }
  return { deleted, ...(page.LastEvaluatedKey ? { nextKey: page.LastEvaluatedKey } : {}) };
}

/**
 * The sweep as the runtime runs it: a page of `itemsPerSlice` items per call, carrying on where the
 * last slice stopped and starting over at the table's end, so that no slice holds the event loop (and
 * the requests it serves) for long whatever the table's size; a full pass takes size / itemsPerSlice
 * slices. Resolves with how many items the slice deleted.
 */
export function incrementalSweeper(client: DynamoDBClient, tableName: string, itemsPerSlice: number): () => Promise<number> {
  let startKey: Record<string, AttributeValue> | undefined;
  return async () => {
    const page = await sweepExpiredPage(client, tableName, startKey, itemsPerSlice);
    startKey = page.nextKey;
    return page.deleted;
  };
}
