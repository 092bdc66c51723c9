import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SignInFailures, SignInFailuresRepository } from '../domain/accounts/ports.ts';
import { sha256 } from '../domain/accounts/secrets.ts';
import { type Db, isConditionFailure } from './client.ts';
import * as keys from './keys.ts';
import { normaliseEmail } from './keys.ts';

/**
 * Failed sign-ins per e-mail address, whether or not an account has it (so the answers cannot tell),
 * keyed by the SHA-256 of the normalised address: no address is stored in clear.
 */
export function signInFailuresRepository(db: Db): SignInFailuresRepository {
  const { doc, tableName: TableName } = db;
  const keyOf = (email: string) => keys.signInFailures(sha256(normaliseEmail(email)));
  return {
    async get(email: string): Promise<SignInFailures | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keyOf(email), ConsistentRead: true }));
      return Item ? { failures: Number(Item['failures']), lastFailureAtMs: Number(Item['lastFailureAtMs']) } : undefined;
    },

    async countAttempt(
      email: string,
      seen: SignInFailures | undefined,
      nowMs: number,
      restart: boolean,
      expiresAtSeconds: number,
    ): Promise<number | undefined> {
      const unchanged = seen
        ? { ConditionExpression: 'failures = :seen AND lastFailureAtMs = :seenAt', values: { ':seen': seen.failures, ':seenAt': seen.lastFailureAtMs } }
        : { ConditionExpression: 'attribute_not_exists(PK)', values: {} };
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName,
            Key: keyOf(email),
            UpdateExpression: `${restart ? 'SET failures = :one,' : 'ADD failures :one SET'} lastFailureAtMs = :now, expiresAt = :expires, entity = :entity`,
            ConditionExpression: unchanged.ConditionExpression,
            ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':expires': expiresAtSeconds, ':entity': 'signInFailures', ...unchanged.values },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(Attributes?.['failures'] ?? 1);
      } catch (err) {
        if (isConditionFailure(err)) return undefined;
        throw err;
      }
    },

    async clear(email: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keyOf(email) }));
    },
  };
}
