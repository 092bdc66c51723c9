import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Store } from '#shared/domain/store.ts';
import { createDb, type Db } from '#shared/store/client.ts';
import { createTableInput } from '#shared/store/table.ts';
import { startDynamoDb } from '../../infra/local/dynamodb.ts';
import { createStore } from './store.ts';

/** An in-memory dynalite (as the local runtime starts it) with the service's table, for integration tests of the store. */
export async function startDynamo(tableName = 'aos-it'): Promise<{ db: Db; client: DynamoDBClient; stop: () => Promise<void> }> {
  const { client, stop } = await startDynamoDb();
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  return { db: createDb(tableName, client), client, stop };
}

/** `startDynamo` with every repository over the table: `({ store, stop } = await startStore('aos-…'))` in a `beforeAll`. */
export async function startStore(tableName?: string): Promise<{ db: Db; store: Store; stop: () => Promise<void> }> {
  const { db, stop } = await startDynamo(tableName);
  return { db, store: createStore(db), stop };
}
