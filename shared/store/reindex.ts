import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AlertRecord } from '../domain/alerts/ports.ts';
import type { ReindexProgress, ReindexRepository } from '../domain/maintenance/ports.ts';
import type { StoredLog, StoredSignal } from '../domain/spans/ports.ts';
import { alertIndexKeys } from './alerts.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';
import { TABLE } from './table.ts';
import { timelineIndexKeys } from './timeline.ts';

/** The entities whose index entries the current layout changed, as their items name themselves. */
export const REINDEXED_ENTITIES = ['traceSummary', 'log', 'signal', 'alert'] as const;

const INDEX_ATTRIBUTES = Object.values(TABLE.indexes).flatMap((index) => [index.partitionKey, index.sortKey]);

/**
 * The one-off walk over the table that moves items written before an index layout into it: the
 * progress of each layout, scan pages of the entities it concerns, and rewrites of index entries
 * that never bring back a deleted item (and, for alerts, never undo a change made meanwhile).
 */
export function reindexRepository(db: Db): ReindexRepository {
  const { doc, tableName: TableName } = db;

  /** Sets the item's index entries to these and removes the others, if it still exists (and `version` still holds). */
  async function setIndexKeys(key: Record<string, unknown>, entries: Record<string, unknown>, version?: number): Promise<void> {
    const set = Object.keys(entries);
    const gone = INDEX_ATTRIBUTES.filter((name) => !set.includes(name));
    await written(
      doc.send(
        new UpdateCommand({
          TableName,
          Key: key,
          UpdateExpression: `SET ${set.map((name) => `${name} = :${name}`).join(', ')}${gone.length ? ` REMOVE ${gone.join(', ')}` : ''}`,
          ConditionExpression: version === undefined ? 'attribute_exists(PK)' : 'attribute_exists(PK) AND version = :version',
          ExpressionAttributeValues: {
            ...Object.fromEntries(set.map((name) => [`:${name}`, entries[name]])),
            ...(version === undefined ? {} : { ':version': version }),
          },
        }),
      ),
    );
  }

  return {
    async progress(layout: string): Promise<ReindexProgress> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.reindexProgress(layout), ConsistentRead: true }));
      return Item
        ? { ...(Item['startKey'] ? { startKey: Item['startKey'] as Record<string, unknown> } : {}), done: Item['done'] === true, items: Number(Item['items']) }
        : { done: false, items: 0 };
    },

    async saveProgress(layout: string, progress: ReindexProgress): Promise<void> {
      await doc.send(new PutCommand({ TableName, Item: { ...keys.reindexProgress(layout), entity: 'reindexProgress', ...progress } }));
    },

    /** One page of the table's items of the re-indexed entities (`limit` items read). */
    async scanPage(startKey: Record<string, unknown> | undefined, limit: number) {
      const page = await doc.send(
        new ScanCommand({
          TableName,
          FilterExpression: `#entity IN (${REINDEXED_ENTITIES.map((_, i) => `:e${i}`).join(', ')})`,
          ExpressionAttributeNames: { '#entity': 'entity' },
          ExpressionAttributeValues: Object.fromEntries(REINDEXED_ENTITIES.map((entity, i) => [`:e${i}`, entity])),
          Limit: limit,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      return { items: page.Items ?? [], next: page.LastEvaluatedKey };
    },

    rewriteTimelineEntry(item: Record<string, unknown>): Promise<void> {
      const kind = item['entity'] === 'log' ? 'LOG' : 'SIGNAL';
      const entry = stripKeys<StoredLog & StoredSignal & { tenantId: string }>(item);
      return setIndexKeys({ PK: item['PK'], SK: item['SK'] }, timelineIndexKeys(entry.tenantId, kind, entry));
    },

    rewriteAlert(item: Record<string, unknown>): Promise<void> {
      const alert = stripKeys<AlertRecord>(item);
      return setIndexKeys(keys.alert(alert.tenantId, alert.id), alertIndexKeys(alert), alert.version);
    },
  };
}
