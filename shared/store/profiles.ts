import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LearningState } from '../domain/profiles/learning.ts';
import type { ProfilesRepository, TraceAnomalies } from '../domain/profiles/ports.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';
import { TABLE } from './table.ts';

/**
 * Agent profiles with their learning state: one item per agent in the tenant's partition, written
 * over the version it was read at. While a cycle is scheduled the item also sits in GSI1 under one
 * partition in due order, so the learning job reads only the agents that are due.
 */
export function profilesRepository(db: Db): ProfilesRepository {
  const { doc, tableName: TableName } = db;
  const { gsi1 } = TABLE.indexes;

  return {
    async get(tenantId: string, agentId: string): Promise<LearningState | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agentProfile(tenantId, agentId), ConsistentRead: true }));
      return Item ? stripKeys<LearningState>(Item) : undefined;
    },

    /**
     * Writes the state if nobody wrote it since it was read at `state.version` (version 0: never
     * stored); answers it with its new version, or undefined when another writer came first.
     */
    async save(state: LearningState): Promise<LearningState | undefined> {
      const saved = { ...state, version: state.version + 1 };
      const due = state.nextLearningAt === null ? {} : keys.profileLearningDue(state.nextLearningAt, state.tenantId, state.agentId);
      const put = doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.agentProfile(state.tenantId, state.agentId), ...due, entity: 'agentProfile', ...saved },
          ConditionExpression: state.version === 0 ? 'attribute_not_exists(PK)' : 'version = :v',
          ...(state.version === 0 ? {} : { ExpressionAttributeValues: { ':v': state.version } }),
        }),
      );
      return (await written(put)) ? saved : undefined;
    },

    async delete(tenantId: string, agentId: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keys.agentProfile(tenantId, agentId) }));
    },

    /** Up to `limit` agents whose learning cycle is due at `now`, the longest overdue first. */
    async due(now: Date, limit: number): Promise<Array<{ tenantId: string; agentId: string }>> {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName,
          IndexName: gsi1.name,
          KeyConditionExpression: `${gsi1.partitionKey} = :pk AND ${gsi1.sortKey} <= :now`,
          ExpressionAttributeValues: { ':pk': keys.profileLearningDuePartition(), ':now': `${now.toISOString()}~` },
          ProjectionExpression: 'tenantId, agentId',
          Limit: limit,
        }),
      );
      return (Items ?? []).map((i) => ({ tenantId: String(i['tenantId']), agentId: String(i['agentId']) }));
    },

    /** Idempotent: detecting the same trace again writes the same item. Expires with the trace. */
    async putAnomalies(tenantId: string, found: TraceAnomalies, expiresAt: number): Promise<void> {
      await doc.send(new PutCommand({ TableName, Item: { ...keys.traceAnomalies(tenantId, found.traceId), entity: 'traceAnomalies', ...found, expiresAt } }));
    },

    async anomaliesOf(tenantId: string, traceId: string): Promise<TraceAnomalies | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.traceAnomalies(tenantId, traceId) }));
      return Item ? stripKeys<TraceAnomalies>(Item) : undefined;
    },
  };
}
