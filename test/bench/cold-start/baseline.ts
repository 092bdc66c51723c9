import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start baseline: the smallest function that reads the table, made the way ours make their
 * clients (on first use). Bundled with the same settings, it is the floor the SDK alone sets.
 */
let client: DynamoDBDocumentClient | undefined;

export const handler = async (event: { id: string }) => {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const { Item } = await client.send(new GetCommand({ TableName: process.env['TABLE_NAME'], Key: { PK: event.id, SK: event.id } }));
  return Item ?? null;
};
