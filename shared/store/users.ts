import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EmailTakenError, type UserRecord, type UsersRepository } from '../domain/accounts/ports.ts';
import { type Db, isConditionFailure, written } from './client.ts';
import * as keys from './keys.ts';
import { normaliseEmail, stripKeys } from './keys.ts';

export function usersRepository(db: Db): UsersRepository {
  const { doc, tableName: TableName } = db;

  async function get(userId: string): Promise<UserRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.user(userId) }));
    return Item ? stripKeys<UserRecord>(Item) : undefined;
  }

  return {
    get,

    /**
     * Writes the user, then claims the e-mail. No transactions (dynalite has none), so the order makes
     * a crash harmless: a user item without its claim is unreachable, and a lost race deletes it.
     */
    async create(user: UserRecord): Promise<void> {
      const email = normaliseEmail(user.email);
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.user(user.id), entity: 'user', ...user, email },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: { ...keys.emailClaim(email), entity: 'emailClaim', userId: user.id },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (err) {
        await doc.send(new DeleteCommand({ TableName, Key: keys.user(user.id) }));
        if (isConditionFailure(err)) throw new EmailTakenError(email);
        throw err;
      }
    },

    async findByEmail(email: string): Promise<UserRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.emailClaim(email) }));
      if (!Item) return undefined;
      const user = await get(String(Item['userId']));
      return user && user.email === normaliseEmail(email) ? user : undefined;
    },

    async setPasswordHash(userId: string, passwordHash: string, now: Date, unlessResetSince: Date): Promise<boolean> {
      return written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET passwordHash = :h, updatedAt = :now, passwordChangedAt = :now',
            // ISO times of one form order as text does: a reset since the link was made refuses it, in the same write.
            ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(passwordChangedAt) OR passwordChangedAt < :since)',
            ExpressionAttributeValues: { ':h': passwordHash, ':now': now.toISOString(), ':since': unlessResetSince.toISOString() },
          }),
        ),
      );
    },

    async markEmailVerified(userId: string, now: Date): Promise<void> {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET isEmailVerified = :t, updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':t': true, ':now': now.toISOString() },
        }),
      );
    },

    async findUserIdByExternalIdentity(issuer: string, subject: string): Promise<string | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.externalIdentity(issuer, subject) }));
      return Item ? String(Item['userId']) : undefined;
    },

    /** Links an external subject to a user; when another request linked it first, returns that user's id. */
    async linkExternalIdentity(issuer: string, subject: string, userId: string): Promise<string> {
      const linked = await written(
        doc.send(
          new PutCommand({
            TableName,
            Item: { ...keys.externalIdentity(issuer, subject), entity: 'externalIdentity', userId },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        ),
      );
      if (linked) return userId;
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.externalIdentity(issuer, subject), ConsistentRead: true }));
      return String(Item?.['userId']);
    },
  };
}
