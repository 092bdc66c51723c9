import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LinkTokenPurpose, LinkTokenRecord, LinkTokensRepository } from '../domain/accounts/ports.ts';
import { sha256 } from '../domain/accounts/secrets.ts';
import { type Db, epochSeconds } from './client.ts';
import * as keys from './keys.ts';

/** Single-use tokens sent in e-mail links, stored only as their SHA-256. */
export function linkTokensRepository(db: Db): LinkTokensRepository {
  const { doc, tableName: TableName } = db;
  return {
    async put(token: string, purpose: LinkTokenPurpose, userId: string, expires: Date, issued: Date): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.linkToken(sha256(token)), entity: 'linkToken', purpose, userId, expiresAt: epochSeconds(expires), issuedAtMs: issued.getTime() },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    /** Deletes and returns the token in one atomic step, so two concurrent uses cannot both succeed. */
    async consume(token: string): Promise<LinkTokenRecord | undefined> {
      const { Attributes } = await doc.send(new DeleteCommand({ TableName, Key: keys.linkToken(sha256(token)), ReturnValues: 'ALL_OLD' }));
      if (!Attributes) return undefined;
      return {
        purpose: Attributes['purpose'] as LinkTokenPurpose,
        userId: String(Attributes['userId']),
        expiresAt: Number(Attributes['expiresAt']),
        ...(Attributes['issuedAtMs'] === undefined ? {} : { issuedAtMs: Number(Attributes['issuedAtMs']) }),
      };
    },
  };
}
