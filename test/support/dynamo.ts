import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from '#shared/domain/store.ts';
import { createDb, type Db } from '#shared/store/client.ts';
import { createTableInput } from '#shared/store/table.ts';
import { createActiveTable, startDynamoDb } from '../../infra/local/dynamodb.ts';
import { createStore } from './store.ts';

/** An in-memory dynalite (as the local runtime starts it) with the service's table, for integration tests of the store. */
export async function startDynamo(tableName = 'aos-it'): Promise<{ db: Db; client: DynamoDBClient; stop: () => Promise<void> }> {
  const { client, stop } = await startDynamoDb();
  await createActiveTable(client, createTableInput(tableName));
  return { db: createDb(tableName, client), client, stop };
}

/** `startDynamo` with every repository over the table: `({ store, stop } = await startStore('aos-…'))` in a `beforeAll`. */
export async function startStore(tableName?: string): Promise<{ db: Db; store: Store; stop: () => Promise<void> }> {
  const { db, stop } = await startDynamo(tableName);
  return { db, store: createStore(db), stop };
}

/** Every item of a test's or a bench's table, strongly consistent: for tables small enough to read whole. */
export async function tableItems({ doc, tableName }: Db): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
