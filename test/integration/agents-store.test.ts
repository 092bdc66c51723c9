import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentRecord } from '#shared/domain/agents/ports.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import type { Store } from '#shared/domain/store.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { startStore } from '../support/dynamo.ts';

let db: Db;
let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore('aos-agents-store'));
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

const agent = (id: string, name: string): AgentRecord => ({
  id,
  tenantId: 'tnt_names',
  name,
  description: '',
  profileSettings: { learningEnabled: true },
  source: 'implicit',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
});

it('finds, and drops on delete, a claim written before names were normalized, under its decomposed spelling', async () => {
  const decomposed = 'Cafe\u0301-bot';
  await store.agents.create(agent('agt_legacy', decomposed));
  // Where a claim written before 2026-11-30 lies: under the name as sent, lower-cased, not normalized.
  const current = keys.agentName('tnt_names', decomposed);
  const { Item: claim } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: current }));
  await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: current }));
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...claim, ...keys.legacyAgentName('tnt_names', decomposed) } }));

  expect(await store.agents.idForName('tnt_names', decomposed)).toBe('agt_legacy');
  expect(await store.agents.ensure(agent('agt_new', decomposed))).toBe('agt_legacy');
  expect((await store.agents.countNames('tnt_names')).count).toBe(1);
  await store.agents.delete('tnt_names', 'agt_legacy');
  expect(await store.agents.idForName('tnt_names', decomposed)).toBeUndefined();
  expect((await store.agents.countNames('tnt_names')).count).toBe(0);
});
