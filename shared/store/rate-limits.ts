import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitsRepository } from '../domain/ports.ts';
import type { Db } from './client.ts';
import * as keys from './keys.ts';

/** Fixed windows (a minute for request limits, an hour for alert notifications) counted with atomic ADD; each item expires two windows after its own. */
export function rateLimitsRepository(db: Db): RateLimitsRepository {
  const { doc, tableName: TableName } = db;
  return {
    async hit(credential: string, tier: string, windowStartSeconds: number, windowSeconds: number): Promise<number> {
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.rateWindow(credential, tier, windowStartSeconds),
          UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :expires), entity = :entity',
          ExpressionAttributeValues: { ':one': 1, ':expires': windowStartSeconds + 3 * windowSeconds, ':entity': 'rateWindow' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.['hits'] ?? 1);
    },
  };
}
