import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RefreshFamilyRecord, RefreshTokenRecord, RefreshTokensRepository, RefreshTokenUse } from '../domain/accounts/ports.ts';
import { sha256 } from '../domain/accounts/secrets.ts';
import { type Db, epochSeconds, ifWritten, written } from './client.ts';
import * as keys from './keys.ts';

const tokenRecord = (item: Record<string, unknown>): RefreshTokenRecord => ({
  familyId: String(item['familyId']),
  userId: String(item['userId']),
  expiresAt: Number(item['expiresAt']),
});

/**
 * Refresh tokens (stored only as their SHA-256) and their families. A token is used once: the
 * first use marks it in one conditional write, so of two concurrent uses exactly one is the first.
 */
export function refreshTokensRepository(db: Db): RefreshTokensRepository {
  const { doc, tableName: TableName } = db;
  return {
    async createFamily(family: Omit<RefreshFamilyRecord, 'revoked'>): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: {
            ...keys.refreshFamily(family.familyId),
            entity: 'refreshFamily',
            userId: family.userId,
            expiresAt: family.expiresAt,
            ...(family.passwordSetAt === undefined ? {} : { passwordSetAt: family.passwordSetAt }),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    async getFamily(familyId: string): Promise<RefreshFamilyRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.refreshFamily(familyId), ConsistentRead: true }));
      if (!Item) return undefined;
      return {
        familyId,
        userId: String(Item['userId']),
        expiresAt: Number(Item['expiresAt']),
        revoked: Item['revokedAt'] !== undefined,
        ...(Item['passwordSetAt'] === undefined ? {} : { passwordSetAt: String(Item['passwordSetAt']) }),
      };
    },

    /** Marks the family revoked: none of its tokens refreshes again (the items expire by TTL). */
    async revokeFamily(familyId: string, now: Date): Promise<void> {
      await written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.refreshFamily(familyId),
            UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':now': now.toISOString() },
          }),
        ),
      );
    },

    async put(token: string, record: RefreshTokenRecord): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.refreshToken(sha256(token)), entity: 'refreshToken', ...record },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    /** Uses a token: the first use marks it used; a later one finds it marked (reuse). */
    async use(token: string, now: Date): Promise<RefreshTokenUse> {
      const key = keys.refreshToken(sha256(token));
      const first = await ifWritten(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: key,
            UpdateExpression: 'SET usedAt = :now',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt)',
            ExpressionAttributeValues: { ':now': epochSeconds(now) },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      if (first) return { kind: 'first', token: tokenRecord(first.Attributes ?? {}) };
      const { Item } = await doc.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
      return Item ? { kind: 'reused', token: tokenRecord(Item) } : { kind: 'unknown' };
    },
  };
}
