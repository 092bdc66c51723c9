import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LogsRepository, SignalsRepository, StoredLog, StoredSignal, TimelineEntry, TimelineFilter, TimelineRepository } from '../domain/spans/ports.ts';
import { batchWrite, deleteRequests, putRequests, queryAll } from './batch.ts';
import type { Db } from './client.ts';
import * as keys from './keys.ts';
import { collectionIndexKeys, stripKeys, timeSortKey, type Collection } from './keys.ts';
import { TABLE } from './table.ts';
import { timeRangeCondition } from './traces.ts';

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Signals and logs: stored inside their trace's partition when they name a trace (so a trace reads in
 * one query), else in a per-day partition; listed through GSI1 (tenant) and GSI2 (agent) in time order.
 */
export function timelineRepository<T extends TimelineEntry>(db: Db, kind: 'SIGNAL' | 'LOG'): TimelineRepository<T> {
  const collection: Collection = kind === 'SIGNAL' ? 'SIGNALS' : 'LOGS';
  const { gsi1, gsi2 } = TABLE.indexes;

  return {
    async put(tenantId: string, entries: readonly T[], expiresAt: number): Promise<void> {
      const items = entries.map((entry) => {
        const item: Record<string, unknown> = {
          PK: entry.traceId ? keys.tracePartition(tenantId, entry.traceId) : keys.untracedPartition(tenantId, collection, dayOf(entry.timestampMs)),
          SK: `${kind}#${timeSortKey(entry.timestampMs, entry.id)}`,
          ...collectionIndexKeys(tenantId, entry.agentId, collection, entry.timestampMs, entry.id),
          entity: kind.toLowerCase(),
          ...(entry as TimelineEntry & Record<string, unknown>),
          tenantId,
          expiresAt,
        };
        return item;
      });
      await batchWrite(db, putRequests(items));
    },

    /** Deletes up to `limit` entries of an agent (GSI2); answers how many it deleted. */
    async deleteOfAgent(tenantId: string, agentId: string, limit: number): Promise<number> {
      const page = await db.doc.send(
        new QueryCommand({
          TableName: db.tableName,
          IndexName: gsi2.name,
          KeyConditionExpression: `${gsi2.partitionKey} = :pk`,
          ExpressionAttributeValues: { ':pk': keys.agentCollection(tenantId, agentId, collection) },
          ProjectionExpression: 'PK, SK',
          Limit: limit,
        }),
      );
      const found = page.Items ?? [];
      await batchWrite(db, deleteRequests(found.map((i) => ({ PK: i['PK'], SK: i['SK'] }))));
      return found.length;
    },

    /** Newest first. */
    async list(tenantId: string, filter: TimelineFilter): Promise<T[]> {
      const values: Record<string, unknown> = {};
      const names: Record<string, string> = {};
      const conditions: string[] = [];
      for (const [i, [name, value]] of Object.entries(filter.equals ?? {}).entries()) {
        conditions.push(`#f${i} = :f${i}`);
        names[`#f${i}`] = name;
        values[`:f${i}`] = value;
      }
      const { lower, upper } = timeRangeCondition(filter.startMs, filter.endMs);
      let query: { IndexName?: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> };
      if (filter.traceId) {
        if (filter.agentId) {
          conditions.push('agentId = :agentId');
          values[':agentId'] = filter.agentId;
        }
        query = {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lower AND :upper',
          ExpressionAttributeValues: { ...values, ':pk': keys.tracePartition(tenantId, filter.traceId), ':lower': `${kind}#${lower}`, ':upper': `${kind}#${upper}` },
        };
      } else {
        const index = filter.agentId ? gsi2 : gsi1;
        const partition = filter.agentId ? keys.agentCollection(tenantId, filter.agentId, collection) : keys.tenantCollection(tenantId, collection);
        query = {
          IndexName: index.name,
          KeyConditionExpression: `${index.partitionKey} = :pk AND ${index.sortKey} BETWEEN :lower AND :upper`,
          ExpressionAttributeValues: { ...values, ':pk': partition, ':lower': lower, ':upper': upper },
        };
      }
      const items = await queryAll(db, {
        ...query,
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ScanIndexForward: false,
      });
      return items.map((i) => stripKeys<T>(i));
    },
  };
}

export const signalsRepository = (db: Db): SignalsRepository => timelineRepository<StoredSignal>(db, 'SIGNAL');
export const logsRepository = (db: Db): LogsRepository => timelineRepository<StoredLog>(db, 'LOG');
