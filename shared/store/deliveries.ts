import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveriesRepository } from '../domain/notifications/ports.ts';
import { type Db, epochSeconds } from './client.ts';
import * as keys from './keys.ts';

const REMEMBER_DAYS = 7;

/** Which outbound messages were already settled with SES/SNS, so a redelivered queue message is not sent twice. */
export function deliveriesRepository(db: Db): DeliveriesRepository {
  const { doc, tableName: TableName } = db;
  return {
    async wasDelivered(messageId: string): Promise<boolean> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.delivery(messageId), ConsistentRead: true }));
      return Item !== undefined;
    },
    /** Settles a message: handed over (`sent`), or refused for good by the provider (`undeliverable`). */
    async markDelivered(messageId: string, now: Date, outcome: 'sent' | 'undeliverable'): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: {
            ...keys.delivery(messageId),
            entity: 'delivery',
            deliveredAt: now.toISOString(),
            outcome,
            expiresAt: epochSeconds(now) + REMEMBER_DAYS * 86_400,
          },
        }),
      );
    },
  };
}
