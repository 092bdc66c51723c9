import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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

/**
 * Whether a conditional write was made: false when its condition did not hold (the expected outcome
 * of an idempotent put or an optimistic update that lost its race); any other failure is thrown.
 */
export async function written(write: Promise<unknown>): Promise<boolean> {
  return (await ifWritten(write)) !== undefined;
}

/** A conditional write's output, or undefined when its condition did not hold; any other failure is thrown. */
export async function ifWritten<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

export const epochSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);
