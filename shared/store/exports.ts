import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ExportRecord, ExportSlot, ExportStatus, ExportsRepository } from '../domain/lake/ports.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';
import { TABLE } from './table.ts';

export function exportsRepository(db: Db): ExportsRepository {
  const { doc, tableName: TableName } = db;
  const gsi = TABLE.indexes.gsi1;
  const item = (e: ExportRecord) => ({
    ...keys.traceExport(e.tenantId, e.id),
    ...keys.exportsOfTenant(e.tenantId, e.createdAt, e.id),
    entity: 'export',
    ...e,
    expiresAt: e.deleteAfter,
  });

  return {
    async create(e: ExportRecord): Promise<void> {
      await doc.send(new PutCommand({ TableName, Item: item(e), ConditionExpression: 'attribute_not_exists(PK)' }));
    },

    async get(tenantId: string, exportId: string): Promise<ExportRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.traceExport(tenantId, exportId), ConsistentRead: true }));
      return Item ? stripKeys<ExportRecord>(Item) : undefined;
    },

    /** Replaces the record while it is still in the status it was read in (false: it moved meanwhile). */
    async replaceIfStatus(next: ExportRecord, expected: ExportStatus): Promise<boolean> {
      return written(
        doc.send(
          new PutCommand({
            TableName,
            Item: item(next),
            ConditionExpression: '#status = :expected',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':expected': expected },
          }),
        ),
      );
    },

    async delete(tenantId: string, exportId: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keys.traceExport(tenantId, exportId) }));
    },

    /** One page of a tenant's exports, newest first, after the export `after` (its createdAt#id) when paging on. */
    async page(tenantId: string, limit: number, after?: string): Promise<ExportRecord[]> {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName,
          IndexName: gsi.name,
          KeyConditionExpression: after ? `${gsi.partitionKey} = :pk AND ${gsi.sortKey} < :after` : `${gsi.partitionKey} = :pk`,
          ExpressionAttributeValues: { ':pk': keys.exportsOfTenantPartition(tenantId), ...(after && { ':after': after }) },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (Items ?? []).map((i) => stripKeys<ExportRecord>(i));
    },

    async slots(tenantId: string): Promise<ExportSlot[]> {
      const { Items = [] } = await doc.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.exportSlotsPartition(tenantId) },
          ConsistentRead: true,
        }),
      );
      return Items.map((i) => ({ slot: Number(i['slot']), exportId: String(i['exportId']), heldUntilMs: Number(i['heldUntilMs']) }));
    },

    async claimSlot(tenantId: string, claim: ExportSlot, nowMs: number, replacing?: string): Promise<boolean> {
      return written(
        doc.send(
          new PutCommand({
            TableName,
            Item: {
              ...keys.exportSlot(tenantId, claim.slot),
              entity: 'exportSlot',
              ...claim,
              // The table's expiry takes a slot a day after its hold ran out.
              expiresAt: Math.ceil(claim.heldUntilMs / 1000) + 86_400,
            },
            ...(replacing === undefined
              ? { ConditionExpression: 'attribute_not_exists(PK) OR heldUntilMs <= :now', ExpressionAttributeValues: { ':now': nowMs } }
              : // Or given back since it was read: free.
                { ConditionExpression: 'attribute_not_exists(PK) OR exportId = :held', ExpressionAttributeValues: { ':held': replacing } }),
          }),
        ),
      );
    },

    async releaseSlot(tenantId: string, { slot, exportId }: ExportSlot): Promise<void> {
      await written(
        doc.send(
          new DeleteCommand({
            TableName,
            Key: keys.exportSlot(tenantId, slot),
            ConditionExpression: 'exportId = :held',
            ExpressionAttributeValues: { ':held': exportId },
          }),
        ),
      );
    },
  };
}
