import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeysRepository } from '../domain/accounts/ports.ts';
import type { PageInput, Total } from '../domain/paging/page.ts';
import { queryAll } from './batch.ts';
import { type Db, ifWritten, written } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';
import { countItems, readPage } from './pages.ts';
import { TABLE } from './table.ts';

export function apiKeysRepository(db: Db): ApiKeysRepository {
  const { doc, tableName: TableName } = db;
  const gsi = TABLE.indexes.gsi1;

  async function listAll(tenantId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(db, {
      IndexName: gsi.name,
      KeyConditionExpression: `${gsi.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.apiKeysOfTenantPartition(tenantId) },
      ScanIndexForward: false,
    });
    return items.map((item) => stripKeys<ApiKeyRecord>(item));
  }

  /** Runs an update that must only touch the tenant's own key; false when the key is not theirs or missing. */
  async function updateOwned(
    keyId: string,
    tenantId: string,
    update: { expression: string; values: Record<string, unknown>; condition?: string },
  ): Promise<ApiKeyRecord | undefined> {
    const condition = ['attribute_exists(PK)', 'tenantId = :tenantId', update.condition].filter(Boolean).join(' AND ');
    const usesStatus = `${update.expression} ${condition}`.includes('#status');
    const updated = await ifWritten(
      doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.apiKey(keyId),
          UpdateExpression: update.expression,
          ConditionExpression: condition,
          ...(usesStatus ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: { ':tenantId': tenantId, ...update.values },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return updated?.Attributes ? stripKeys<ApiKeyRecord>(updated.Attributes) : undefined;
  }

  async function getOwned(keyId: string, tenantId: string, consistent = false): Promise<ApiKeyRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.apiKey(keyId), ConsistentRead: consistent }));
    return Item && Item['tenantId'] === tenantId ? stripKeys<ApiKeyRecord>(Item) : undefined;
  }

  const list = (tenantId: string) => ({ sources: [{ index: 'gsi1', partition: keys.apiKeysOfTenantPartition(tenantId) } as const] });

  return {
    /** One page of the tenant's keys, newest first. */
    async page(tenantId: string, page: PageInput) {
      const result = await readPage(db, { ...list(tenantId), page });
      return { ...result, items: result.items.map((item) => stripKeys<ApiKeyRecord>(item)) };
    },

    count: (tenantId: string): Promise<Total> => countItems(db, list(tenantId)),

    async create(record: ApiKeyRecord): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: {
            ...keys.apiKey(record.id),
            ...keys.apiKeysOfTenant(record.tenantId, record.createdAt, record.id),
            entity: 'apiKey',
            ...record,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    /** By key id alone: the authentication path, which learns the tenant from the key. */
    async get(keyId: string): Promise<ApiKeyRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.apiKey(keyId) }));
      return Item ? stripKeys<ApiKeyRecord>(Item) : undefined;
    },

    getOwned,

    listAll,

    replaceSecret(keyId: string, tenantId: string, secretHash: string, lastFour: string, now: Date) {
      return updateOwned(keyId, tenantId, {
        expression: 'SET secretHash = :h, lastFour = :l, rotatedAt = :now, updatedAt = :now',
        values: { ':h': secretHash, ':l': lastFour, ':now': now.toISOString(), ':active': 'active' },
        condition: '#status = :active',
      });
    },

    /**
     * Revokes the key, once: `revokedAt` is when it first was (keys are stored with `revokedAt: null`,
     * which `if_not_exists` took for a time, so it stayed null). A key revoked already is answered as it is.
     */
    async revoke(keyId: string, tenantId: string, now: Date) {
      const revoked = await updateOwned(keyId, tenantId, {
        expression: 'SET #status = :revoked, revokedAt = :now, updatedAt = :now',
        values: { ':revoked': 'revoked', ':now': now.toISOString() },
        condition: '#status <> :revoked',
      });
      return revoked ?? getOwned(keyId, tenantId, true);
    },

    async delete(keyId: string, tenantId: string): Promise<boolean> {
      return written(
        doc.send(
          new DeleteCommand({
            TableName,
            Key: keys.apiKey(keyId),
            ConditionExpression: 'attribute_exists(PK) AND tenantId = :tenantId',
            ExpressionAttributeValues: { ':tenantId': tenantId },
          }),
        ),
      );
    },

    /** Records the use unless a use at or after `staleBefore` is already recorded. */
    async touchLastUsed(keyId: string, now: Date, staleBefore: Date): Promise<void> {
      await written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.apiKey(keyId),
            UpdateExpression: 'SET lastUsedAt = :now',
            ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt = :null OR lastUsedAt < :stale)',
            ExpressionAttributeValues: { ':now': now.toISOString(), ':stale': staleBefore.toISOString(), ':null': null },
          }),
        ),
      );
    },
  };
}
