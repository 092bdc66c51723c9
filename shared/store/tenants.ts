import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TenantRecord, TenantsRepository } from '../domain/accounts/ports.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';

export function tenantsRepository(db: Db): TenantsRepository {
  const { doc, tableName: TableName } = db;
  return {
    async create(tenant: TenantRecord): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.tenant(tenant.id), entity: 'tenant', ...tenant },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    async delete(tenantId: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keys.tenant(tenantId) }));
    },

    async get(tenantId: string): Promise<TenantRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.tenant(tenantId) }));
      return Item ? stripKeys<TenantRecord>(Item) : undefined;
    },

    /** Spans accepted in the billing period that starts at `periodStart` (ISO 8601). */
    async spansUsed(tenantId: string, periodStart: string): Promise<number> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.usage(tenantId, periodStart) }));
      return Number(Item?.['spans'] ?? 0);
    },

    /**
     * Adds `spans` (negative to give them back) to the period's counter, which lives as long as the
     * period plus a year, for billing history. With `limit`, only when the counter stays within it:
     * one conditional write, so concurrent requests cannot together pass the limit.
     */
    async countSpans(tenantId: string, periodStart: string, spans: number, expiresAt: number, limit?: number): Promise<boolean> {
      // A counter not yet written passes any condition: a request larger than the whole limit is refused here.
      if (limit !== undefined && spans > limit) return false;
      const within = limit === undefined ? undefined : { ConditionExpression: 'attribute_not_exists(spans) OR spans <= :room', room: limit - spans };
      return written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.usage(tenantId, periodStart),
            UpdateExpression: 'ADD spans :n SET expiresAt = if_not_exists(expiresAt, :expires), entity = :entity',
            ...(within ? { ConditionExpression: within.ConditionExpression } : {}),
            ExpressionAttributeValues: { ':n': spans, ':expires': expiresAt, ':entity': 'usage', ...(within ? { ':room': within.room } : {}) },
          }),
        ),
      );
    },
  };
}
