import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SignInFailures, SignInFailuresRepository } from '../domain/accounts/ports.ts';
import { sha256 } from '../domain/accounts/secrets.ts';
import type { Db } from './client.ts';
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

    /** Counts one more failure (atomically; or the first of a new series when `restart`); resolves with the count. */
    async recordFailure(email: string, nowMs: number, restart: boolean, expiresAtSeconds: number): Promise<number> {
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName,
          Key: keyOf(email),
          UpdateExpression: `${restart ? 'SET failures = :one,' : 'ADD failures :one SET'} lastFailureAtMs = :now, expiresAt = :expires, entity = :entity`,
          ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':expires': expiresAtSeconds, ':entity': 'signInFailures' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.['failures'] ?? 1);
    },

    async clear(email: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keyOf(email) }));
    },
  };
}
