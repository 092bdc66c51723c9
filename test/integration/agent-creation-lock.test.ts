import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import type { Store } from '#shared/domain/store.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { startStore } from '../support/dynamo.ts';

let db: Db;
let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore('aos-agent-lock'));
});
afterAll(() => stop());

const hold = (tenantId: string, heldUntilMs: number) =>
  db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...keys.agentCreationLock(tenantId), holder: 'someone else', heldUntilMs } }));

it('lets one holder at a time do its work, and frees the lock after each, failures included', async () => {
  let inside = 0;
  let most = 0;
  const work = async (fail: boolean) => {
    most = Math.max(most, ++inside);
    await new Promise((resolve) => setTimeout(resolve, 20));
    inside--;
    if (fail) throw new Error('refused');
    return 'done';
  };
  const results = await Promise.allSettled([0, 1, 2, 3].map((i) => store.agents.withCreationLock('tnt_lock_1', () => work(i === 1))));
  expect(most).toBe(1);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect(await store.agents.withCreationLock('tnt_lock_1', async () => 'free again')).toBe('free again');
});

it('takes a lock whose holder stopped holding it (its hold ran out), and waits out one still held', async () => {
  await hold('tnt_lock_2', Date.now() - 1);
  expect(await store.agents.withCreationLock('tnt_lock_2', async () => 'taken')).toBe('taken');
  await hold('tnt_lock_3', Date.now() + 60_000);
  await expect(store.agents.withCreationLock('tnt_lock_3', async () => 'never')).rejects.toThrow(ServiceUnavailableError);
}, 20_000);
