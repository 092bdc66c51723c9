import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { createDb, type Db } from '../../shared/store/client.ts';
import { createTableInput } from '../../shared/store/table.ts';

/** An in-memory dynalite with the service's table, for integration tests of the store. */
export async function startDynamo(tableName = 'aos-it'): Promise<{ db: Db; client: DynamoDBClient; stop: () => Promise<void> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  return {
    db: createDb(tableName, client),
    client,
    stop: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
