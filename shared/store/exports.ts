import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ExportFormat } from '../domain/lake/sql.ts';
import { written, type Db } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';
import { TABLE } from './table.ts';

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** An export job and, once it has run, its file. */
export interface ExportRecord {
  id: string;
  tenantId: string;
  status: ExportStatus;
  format: ExportFormat;
  /** The selection: [startDate, endDate] (ISO), an agent, a query in the search language. */
  startDate: string;
  endDate: string;
  agentId: string | null;
  q: string | null;
  rows: number | null;
  bytes: number | null;
  /** Where the file is (an S3 key or a local path); never shown to clients. */
  location: string | null;
  /** Why it failed, in words for the user. */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The record, and its file, go after this (epoch seconds; the item's TTL). */
  deleteAfter: number;
}

export function exportsRepository(db: Db) {
  const { doc, tableName: TableName } = db;
  const gsi = TABLE.indexes.gsi1;
  const item = (e: ExportRecord) => ({ ...keys.traceExport(e.tenantId, e.id), ...keys.exportsOfTenant(e.tenantId, e.createdAt, e.id), entity: 'export', ...e, expiresAt: e.deleteAfter });

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
      return written(doc.send(
        new PutCommand({
          TableName,
          Item: item(next),
          ConditionExpression: '#status = :expected',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':expected': expected },
        }),
        ));
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
  };
}
