import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SubscriptionRecord } from '../domain/plans/subscription.ts';
import type { Db } from './client.ts';
import { keys, stripKeys } from './keys.ts';

export interface TenantRecord {
  id: string;
  ownerUserId: string;
  subscription: SubscriptionRecord;
  createdAt: string;
}

export function tenantsRepository(db: Db) {
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

    async countAgents(tenantId: string): Promise<number> {
      const { PK, SKPrefix } = keys.agentPrefix(tenantId);
      let count = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
            Select: 'COUNT',
            ExclusiveStartKey,
          }),
        );
        count += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return count;
    },
  };
}
export type TenantsRepository = ReturnType<typeof tenantsRepository>;
