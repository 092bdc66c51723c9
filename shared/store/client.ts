import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

export interface Db {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

/** The real client; endpoint and credentials come from the environment (AWS_ENDPOINT_URL_DYNAMODB locally). */
export function createDb(tableName: string, client = new DynamoDBClient({})): Db {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { doc, tableName };
}

export const isConditionFailure = (err: unknown): boolean => err instanceof ConditionalCheckFailedException;

export const epochSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);
