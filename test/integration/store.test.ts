import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyRecord, EmailTakenError, type UserRecord } from '#shared/domain/accounts/ports.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import type { PageInput } from '#shared/domain/paging/page.ts';
import type { TraceQuery } from '#shared/domain/spans/ports.ts';
import { summarizeTrace, type TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { timeSortKey } from '#shared/store/keys.ts';
import { tracePartitionItems } from '#shared/store/traces.ts';
import { llm, spansOf, tool } from '../fixtures/judge/build.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';

let store: Store;
let db: Db;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore());
});
afterAll(() => stop());

let n = 0;
const user = (email: string): UserRecord => ({
  id: `usr_${++n}`,
  tenantId: `tnt_${n}`,
  email,
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: null,
  image: null,
  provider: 'local',
  passwordHash: 'scrypt$17$8$1$x$y',
  isActive: true,
  isAdmin: false,
  isEmailVerified: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});
const apiKey = (id: string, tenantId: string, createdAt = '2026-01-01T00:00:00.000Z'): ApiKeyRecord => ({
  id,
  tenantId,
  createdBy: 'usr_x',
  name: id,
  prefix: 'aos_live_abcd',
  lastFour: 'wxyz',
  secretHash: `hash-${id}`,
  status: 'active',
  createdAt,
  updatedAt: createdAt,
  lastUsedAt: null,
  rotatedAt: null,
  revokedAt: null,
});

describe('users', () => {
  it('claims each e-mail once, case-insensitively, and leaves no orphan user behind', async () => {
    const first = user('Grace@Example.com');
    await store.users.create(first);
    const second = user('grace@example.COM');
    await expect(store.users.create(second)).rejects.toBeInstanceOf(EmailTakenError);
    expect(await store.users.get(second.id)).toBeUndefined();
    expect((await store.users.findByEmail(' GRACE@example.com '))?.id).toBe(first.id);
  });

  it('one of two concurrent registrations of an e-mail wins', async () => {
    const results = await Promise.allSettled([store.users.create(user('race@example.com')), store.users.create(user('race@example.com'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('links an external identity to exactly one user under a race', async () => {
    const [a, b] = await Promise.all([
      store.users.linkExternalIdentity('https://issuer', 'sub-1', 'usr_a'),
      store.users.linkExternalIdentity('https://issuer', 'sub-1', 'usr_b'),
    ]);
    expect(a).toBe(b);
    expect(await store.users.findUserIdByExternalIdentity('https://issuer', 'sub-1')).toBe(a);
  });
});

describe('API keys', () => {
  it('lists a tenant its own keys only, newest first', async () => {
    await store.apiKeys.create(apiKey('k1', 'tnt_a', '2026-01-01T00:00:00.000Z'));
    await store.apiKeys.create(apiKey('k2', 'tnt_a', '2026-01-02T00:00:00.000Z'));
    await store.apiKeys.create(apiKey('k3', 'tnt_b'));
    expect((await store.apiKeys.listAll('tnt_a')).map((k) => k.id)).toEqual(['k2', 'k1']);
  });

  it("never reads, rotates, revokes or deletes another tenant's key", async () => {
    await store.apiKeys.create(apiKey('k4', 'tnt_c'));
    const now = new Date();
    expect(await store.apiKeys.getOwned('k4', 'tnt_d')).toBeUndefined();
    expect(await store.apiKeys.replaceSecret('k4', 'tnt_d', 'evil', 'evil', now)).toBeUndefined();
    expect(await store.apiKeys.revoke('k4', 'tnt_d', now)).toBeUndefined();
    expect(await store.apiKeys.delete('k4', 'tnt_d')).toBe(false);
    expect(await store.apiKeys.get('k4')).toMatchObject({ status: 'active', secretHash: 'hash-k4' });
  });

  it('rotates only active keys and records use at most once a minute', async () => {
    await store.apiKeys.create(apiKey('k5', 'tnt_e'));
    const t0 = new Date('2026-02-01T00:00:00Z');
    expect(await store.apiKeys.replaceSecret('k5', 'tnt_e', 'new-hash', '1234', t0)).toMatchObject({ secretHash: 'new-hash', lastFour: '1234' });
    const touch = (at: Date) => store.apiKeys.touchLastUsed('k5', at, new Date(at.getTime() - 60_000));
    await touch(t0);
    await touch(new Date(t0.getTime() + 30_000));
    expect((await store.apiKeys.get('k5'))?.lastUsedAt).toBe(t0.toISOString());
    await touch(new Date(t0.getTime() + 61_000));
    expect((await store.apiKeys.get('k5'))?.lastUsedAt).toBe(new Date(t0.getTime() + 61_000).toISOString());
    await store.apiKeys.revoke('k5', 'tnt_e', t0);
    expect(await store.apiKeys.replaceSecret('k5', 'tnt_e', 'again', '5678', t0)).toBeUndefined();
  });
});

describe('link tokens', () => {
  it('are single use even when two requests race', async () => {
    await store.linkTokens.put('tok-1', 'password-reset', 'usr_1', new Date(Date.now() + 3_600_000), new Date());
    const [a, b] = await Promise.all([store.linkTokens.consume('tok-1'), store.linkTokens.consume('tok-1')]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await store.linkTokens.consume('tok-1')).toBeUndefined();
  });
});

describe('rate-limit windows', () => {
  it('count concurrent hits atomically', async () => {
    const counts = await Promise.all(Array.from({ length: 40 }, () => store.rateLimits.hit('key:k', 'standard', 1_000_020, 60)));
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await store.rateLimits.hit('key:k', 'strict', 1_000_020, 60)).toBe(1);
    expect(await store.rateLimits.hit('key:k', 'standard', 1_000_080, 60)).toBe(1);
  });
});

describe('deliveries', () => {
  it('remember what was settled, sent or refused for good', async () => {
    expect(await store.deliveries.wasDelivered('msg_1')).toBe(false);
    await store.deliveries.markDelivered('msg_1', new Date(), 'sent');
    await store.deliveries.markDelivered('msg_2', new Date(), 'undeliverable');
    expect(await store.deliveries.wasDelivered('msg_1')).toBe(true);
    expect(await store.deliveries.wasDelivered('msg_2')).toBe(true);
  });
});

describe('spans', () => {
  const trace = (id: string) =>
    spansOf(id, {
      input: 'Where is my parcel?',
      steps: [llm('It shipped yesterday.'), tool('orders.lookup', { id: 7 }, 'shipped')],
      output: 'It shipped yesterday.',
    });

  it("store a trace's spans that arrived together as one compressed item, and read them back whole", async () => {
    const spans = [...trace('tr-group-1'), ...trace('tr-group-2')];
    await store.traces.putSpans('tnt_spans', spans, 2_000_000_000, 1000);
    const items = await tracePartitionItems(db, 'tnt_spans', 'tr-group-1');
    expect(items).toHaveLength(1);
    expect(items[0]!['spans']).toBeInstanceOf(Uint8Array);
    expect((items[0]!['spans'] as Uint8Array).byteLength).toBeLessThan(JSON.stringify(trace('tr-group-1')).length);
    const stored = await store.traces.spansOf('tnt_spans', 'tr-group-1');
    expect(stored.map(({ writtenAtMs, ...span }) => span)).toEqual(spans.filter((s) => s.traceId === 'tr-group-1'));
    expect(stored.every((s) => s.writtenAtMs === 1000)).toBe(true);
  });

  it('write a redelivered message over its own item', async () => {
    const spans = trace('tr-redelivered');
    await store.traces.putSpans('tnt_spans', spans, 2_000_000_000, 1000);
    await store.traces.putSpans('tnt_spans', spans, 2_000_000_000, 2000);
    expect(await tracePartitionItems(db, 'tnt_spans', 'tr-redelivered')).toHaveLength(1);
    expect((await store.traces.spansOf('tnt_spans', 'tr-redelivered')).map((s) => s.writtenAtMs)).toEqual(spans.map(() => 2000));
  });

  it('answer a span sent again in another grouping once, as last written', async () => {
    const [root, ...children] = trace('tr-regrouped');
    await store.traces.putSpans('tnt_spans', [root!, ...children], 2_000_000_000, 1000);
    const ended = { ...root!, endTimeMs: root!.startTimeMs + 99, output: 'ended later' };
    await store.traces.putSpans('tnt_spans', [ended], 2_000_000_000, 2000);
    const stored = await store.traces.spansOf('tnt_spans', 'tr-regrouped');
    expect(stored).toHaveLength(1 + children.length);
    expect(stored.find((s) => s.spanId === root!.spanId)).toMatchObject({ output: 'ended later', writtenAtMs: 2000 });
  });

  it('hold each span without its trace id and null fields, and read back spans stored whole as well', async () => {
    const spans = trace('tr-compact');
    await store.traces.putSpans('tnt_spans', spans, 2_000_000_000, 1000);
    const [item] = await tracePartitionItems(db, 'tnt_spans', 'tr-compact');
    const held = JSON.parse(brotliDecompressSync(item!['spans'] as Uint8Array).toString('utf8')) as Record<string, unknown>[];
    expect(held.some((s) => 'traceId' in s || Object.values(s).includes(null))).toBe(false);

    const whole = trace('tr-whole');
    await batchWrite(
      db,
      putRequests([
        { ...keys.spanGroup('tnt_spans', 'tr-whole', 'old'), traceId: 'tr-whole', spans: brotliCompressSync(JSON.stringify(whole)), writtenAtMs: 500 },
      ]),
    );
    expect((await store.traces.spansOf('tnt_spans', 'tr-whole')).map(({ writtenAtMs, ...span }) => span)).toEqual(whole);
  });

  it("keep tenants' spans apart", async () => {
    await store.traces.putSpans('tnt_spans_a', trace('tr-shared-id'), 2_000_000_000, 1000);
    expect(await store.traces.spansOf('tnt_spans_b', 'tr-shared-id')).toEqual([]);
  });
});

describe('trace summaries', () => {
  const tenantId = 'tnt_summaries';
  const agent = (id: string) => agentRecord(tenantId, id);
  const summaryOf = (traceId: string, agentId: string | null, startTimeMs: number, status: 'ok' | 'error' = 'ok', over: Partial<TraceSummary> = {}) => ({
    ...summarizeTrace(spansOf(traceId, { input: 'q', steps: [llm('a')], output: 'a' })),
    agentId,
    startTimeMs,
    status,
    ...over,
  });
  const put = (
    traceId: string,
    agentId: string | null,
    startTimeMs: number,
    status: 'ok' | 'error' = 'ok',
    tenant = tenantId,
    over: Partial<TraceSummary> = {},
  ) => store.traces.putSummary(tenant, summaryOf(traceId, agentId, startTimeMs, status, over), 1, 2_000_000_000);
  const FIRST = { limit: 50, skip: 0 };
  const ids = async (tenant: string, q: TraceQuery, page: PageInput = FIRST) => (await store.traces.page(tenant, q, page)).items.map((s) => s.traceId);

  beforeAll(async () => {
    for (const id of ['agt_a', 'agt_b']) await store.agents.create(agent(id));
    await put('tr-a-1', 'agt_a', 1_000);
    await put('tr-b-1', 'agt_b', 2_000, 'error');
    await put('tr-none-1', null, 3_000);
    await put('tr-a-2', 'agt_a', 4_000, 'error', tenantId, { userId: 'u-1' });
    await put('tr-a-3', 'agt_a', 5_000, 'ok', tenantId, { complete: false, userId: 'u-1' });
    await put('tr-elsewhere', null, 5_500, 'ok', 'tnt_elsewhere');
  });

  it("list the tenant's traces of every state and agent newest first, by status, agent, user and start time", async () => {
    expect(await ids(tenantId, {})).toEqual(['tr-a-3', 'tr-a-2', 'tr-none-1', 'tr-b-1', 'tr-a-1']);
    expect(await ids(tenantId, { status: 'error', startMs: 1_500, endMs: 4_000 })).toEqual(['tr-a-2', 'tr-b-1']);
    expect(await ids(tenantId, { status: 'ok' })).toEqual(['tr-a-3', 'tr-none-1', 'tr-a-1']);
    expect(await ids(tenantId, { agentId: 'agt_a', endMs: 4_500 })).toEqual(['tr-a-2', 'tr-a-1']);
    expect(await ids(tenantId, { userId: 'u-1' })).toEqual(['tr-a-3', 'tr-a-2']);
    expect(await ids(tenantId, { userId: 'u-1', status: 'error' })).toEqual(['tr-a-2']);
    expect(await ids('tnt_elsewhere', {})).toEqual(['tr-elsewhere']);
  });

  it('hold their index entries on the summary: by state for the tenant and the agent, by user when they name one', async () => {
    const item = async (traceId: string) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.traceSummary(tenantId, traceId) }))).Item!;
    expect(await item('tr-a-2')).toMatchObject({
      GSI1PK: keys.tenantCollection(tenantId, 'TRACES', 'error'),
      GSI2PK: keys.agentCollection(tenantId, 'agt_a', 'TRACES', 'error'),
      GSI3PK: keys.userCollection(tenantId, 'u-1', 'TRACES'),
      GSI1SK: timeSortKey(4_000, 'tr-a-2'),
    });
    expect(
      Object.keys(await item('tr-none-1'))
        .filter((k) => k.startsWith('GSI'))
        .sort(),
    ).toEqual(['GSI1PK', 'GSI1SK']);
    expect((await item('tr-a-3'))['GSI1PK']).toBe(keys.tenantCollection(tenantId, 'TRACES', 'pending'));
  });

  it('move between lists when a later span finishes the trace, and keep the alert marks a later write does not know of', async () => {
    const tenant = 'tnt_moving';
    const pending = summaryOf('tr-move', 'agt_m', 1_000, 'ok', { complete: false });
    await store.traces.putSummary(tenant, pending, 1, 2_000_000_000);
    await store.traces.markAlerted(tenant, 'tr-move', 'highDuration');
    await store.traces.markAlerted(tenant, 'tr-move', 'highDuration');
    await store.traces.putSummary(tenant, { ...pending, complete: true, status: 'error', startTimeMs: 900 }, 2, 2_000_000_000);
    expect(await ids(tenant, { status: 'error' })).toEqual(['tr-move']);
    expect(await ids(tenant, { status: 'ok' })).toEqual([]);
    expect((await store.traces.getSummary(tenant, 'tr-move'))?.alertTypes).toEqual(new Set(['highDuration']));
    expect(await store.traces.putSummary(tenant, pending, 1, 2_000_000_000)).toBe(false);
    await store.traces.markAlerted(tenant, 'tr-missing', 'error');
    expect(await store.traces.getSummary(tenant, 'tr-missing')).toBeUndefined();
  });

  it('list summaries that started together in the byte order of their ids, as one index answers them', async () => {
    const tenant = 'tnt_ties';
    await put('B', 'agt_t1', 7_000, 'ok', tenant);
    await put('a', 'agt_t2', 7_000, 'error', tenant);
    await put('_x', null, 7_000, 'ok', tenant, { complete: false });
    expect(await ids(tenant, {})).toEqual(['a', '_x', 'B']);
  });

  it("leave out a deleted agent's traces when asked, and remember the agent as deleted", async () => {
    await store.agents.create(agent('agt_gone'));
    await put('tr-gone', 'agt_gone', 6_000, 'ok', tenantId, { userId: 'u-1' });
    await store.agents.delete(tenantId, 'agt_gone');
    const deleted = await store.agents.deletedLately(tenantId);
    expect(deleted).toEqual({ agentIds: ['agt_gone'], complete: true });
    expect(await ids(tenantId, { excludeAgents: deleted.agentIds })).toEqual(['tr-a-3', 'tr-a-2', 'tr-none-1', 'tr-b-1', 'tr-a-1']);
    expect(await ids(tenantId, { userId: 'u-1', excludeAgents: deleted.agentIds })).toEqual(['tr-a-3', 'tr-a-2']);
    expect(await ids(tenantId, {})).toContain('tr-gone');
  });

  it('count the matches of a query within the budget, and say when the count stopped', async () => {
    expect(await store.traces.count(tenantId, { status: 'ok', excludeAgents: ['agt_gone'] })).toEqual({ count: 3, exact: true });
    expect(await store.traces.count(tenantId, {}, ['pending'])).toEqual({ count: 1, exact: true });
    expect(await store.traces.completeStart(tenantId, { agentId: 'agt_a' }, 'oldest')).toBe(1_000);
    expect(await store.traces.completeStart(tenantId, { agentId: 'agt_a' }, 'newest')).toBe(4_000);
    expect(await store.traces.completeStart('tnt_none', {}, 'newest')).toBeUndefined();
  });

  it('filter by what the summary holds: tools, error types, name, tags, metadata, duration, cost, tokens, models and alerts', async () => {
    const tenant = 'tnt_filters';
    const base = { agentId: 'agt_f', status: 'ok' as const };
    const traces: Array<[string, Partial<TraceSummary>]> = [
      ['f1', { toolNames: ['search', 'orders.lookup'], durationMs: 100, cost: 0.5, totalTokens: 900, models: ['gpt-4o'], name: 'answer' }],
      ['f2', { errorTypes: ['Timeout'], durationMs: 9000, cost: 0.01, totalTokens: 50, models: ['claude'], name: 'plan' }],
      [
        'f3',
        {
          toolNames: ['search'],
          durationMs: null,
          cost: 0,
          totalTokens: 0,
          models: [],
          name: 'answer',
          tags: ['vip'],
          metadata: { plan: 'pro', 'odd key.with:chars': 'x' },
        },
      ],
    ];
    for (const [i, [traceId, over]] of traces.entries())
      await store.traces.putSummary(tenant, { ...summaryOf(traceId, base.agentId, 1_000 + i, 'ok'), ...over }, 1, 2_000_000_000);
    await store.traces.markAlerted(tenant, 'f2', 'timeout');
    expect(await ids(tenant, { toolName: 'search' })).toEqual(['f3', 'f1']);
    expect(await ids(tenant, { errorType: 'Timeout' })).toEqual(['f2']);
    expect(await ids(tenant, { name: 'answer' })).toEqual(['f3', 'f1']);
    expect(await ids(tenant, { minDurationMs: 100, maxDurationMs: 1000 })).toEqual(['f1']);
    expect(await ids(tenant, { minCost: 0.01 })).toEqual(['f2', 'f1']);
    expect(await ids(tenant, { minTokens: 100 })).toEqual(['f1']);
    expect(await ids(tenant, { model: 'claude' })).toEqual(['f2']);
    expect(await ids(tenant, { hasAlert: true })).toEqual(['f2']);
    expect(await ids(tenant, { tag: 'vip' })).toEqual(['f3']);
    expect(await ids(tenant, { metadata: { key: 'plan', value: 'pro' } })).toEqual(['f3']);
    expect(await ids(tenant, { metadata: { key: 'odd key.with:chars', value: 'x' } })).toEqual(['f3']);
    expect(await ids(tenant, { metadata: { key: 'plan', value: 'free' } })).toEqual([]);
    expect(await ids(tenant, { hasAlert: false, toolName: 'search' })).toEqual(['f3', 'f1']);
    expect(await store.traces.count(tenant, { toolName: 'search' })).toEqual({ count: 2, exact: true });
  });
});

describe('facets', () => {
  it('are written only when a value is new to this process', async () => {
    await store.traces.addFacets('tnt_facets', { models: ['gpt-4o'], kinds: ['llm'] });
    expect(await store.traces.facets('tnt_facets')).toMatchObject({ models: ['gpt-4o'], kinds: ['llm'] });
    // With the item gone, values already added are not written again: proof that no write happened.
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.facets('tnt_facets') }));
    await store.traces.addFacets('tnt_facets', { models: ['gpt-4o'], kinds: ['llm'] });
    expect(await store.traces.facets('tnt_facets')).toMatchObject({ models: [], kinds: [] });
    await store.traces.addFacets('tnt_facets', { models: ['gpt-4o', 'claude'], kinds: ['llm'] });
    expect(await store.traces.facets('tnt_facets')).toMatchObject({ models: ['claude'], kinds: [] });
  });
});

describe('batch writes', () => {
  it('take two requests for one key (identical records in a request), the last one counting', async () => {
    const item = (n: number) => ({ PK: 'BATCH#dup', SK: 'ITEM', n });
    await batchWrite(db, putRequests([item(1), { PK: 'BATCH#dup', SK: 'OTHER', n: 0 }, item(2)]));
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: { PK: 'BATCH#dup', SK: 'ITEM' } }));
    expect(Item?.['n']).toBe(2);
  });
});

describe('agents', () => {
  const NOW = new Date('2026-02-01T00:00:00.000Z');
  /** The store's agents over a client that runs `meanwhile` before the first command `matches` picks (once). */
  const agentsHolding = (matches: (command: unknown) => boolean, meanwhile: () => Promise<unknown>) => {
    let held = false;
    const slow: Db = {
      tableName: db.tableName,
      doc: {
        send: async (command: unknown) => {
          if (!held && matches(command)) {
            held = true;
            await meanwhile();
          }
          return db.doc.send(command as never);
        },
      } as unknown as Db['doc'],
    };
    return { agents: agentsRepository(slow), held: () => held };
  };

  it('keep one name claim per agent when renames race: the agent is listed once, the names it did not keep are free', async () => {
    const t = 'tnt_renames';
    await store.agents.create(agentRecord(t, 'agt_r', undefined, { name: 'cc' }));
    const names = Array.from({ length: 10 }, (_, i) => `cc${i}`);
    await Promise.all(names.map((name) => store.agents.update(t, 'agt_r', { name }, NOW)));

    const { items } = await store.agents.page(t, { limit: 50, skip: 0 });
    expect(items.map((a) => a.id)).toEqual(['agt_r']);
    expect(await store.agents.countNames(t)).toEqual({ count: 1, exact: true });
    const kept = items[0]!.name;
    expect(names).toContain(kept);
    expect(await store.agents.ensure(agentRecord(t, 'agt_other', undefined, { name: kept }))).toBe('agt_r');
    for (const name of names.filter((n) => n !== kept)) await store.agents.create(agentRecord(t, `agt_${name}`, undefined, { name }));
  });

  it('never bring a deleted agent back by a name it was given while being deleted', async () => {
    const t = 'tnt_rename_delete';
    await store.agents.create(agentRecord(t, 'agt_d', undefined, { name: 'before' }));
    const deleter = agentsHolding(
      (command) => command instanceof DeleteCommand,
      () => store.agents.update(t, 'agt_d', { name: 'after' }, NOW),
    );
    await deleter.agents.delete(t, 'agt_d');

    expect(deleter.held()).toBe(true);
    expect(await store.agents.get(t, 'agt_d')).toBeUndefined();
    expect(await store.agents.idForName(t, 'after', true)).toBeUndefined();
    expect(await store.agents.ensure(agentRecord(t, 'agt_new', undefined, { name: 'after' }))).toBe('agt_new');
    expect(await store.agents.get(t, 'agt_d')).toBeUndefined();
  });

  /**
   * A name claim as a rename that failed partway leaves it (`claimedAtMs` given: listed under its
   * agent, as the repository writes claims), or as an earlier version left it (neither).
   */
  const claim = (t: string, name: string, agentId: string, claimedAtMs?: number) =>
    db.doc.send(
      new PutCommand({
        TableName: db.tableName,
        Item: {
          ...keys.agentName(t, name),
          entity: 'agentName',
          agentId,
          name,
          ...(claimedAtMs === undefined ? {} : { claimedAtMs, GSI2PK: keys.agentCollection(t, agentId, 'NAMES'), GSI2SK: keys.agentName(t, name).SK }),
        },
      }),
    );

  it('take a name anew when its claim names a deleted agent, as concurrent renames of an earlier version left it', async () => {
    const t = 'tnt_stale_claim';
    await store.agents.create(agentRecord(t, 'agt_s', undefined, { name: 'kept' }));
    await store.agents.delete(t, 'agt_s');
    await claim(t, 'lost', 'agt_s');

    expect(await store.agents.ensure(agentRecord(t, 'agt_fresh', undefined, { name: 'lost' }))).toBe('agt_fresh');
    expect(await store.agents.get(t, 'agt_s')).toBeUndefined();
    expect((await store.agents.page(t, { limit: 50, skip: 0 })).items.map((a) => [a.id, a.name])).toEqual([['agt_fresh', 'lost']]);
  });

  it('drop every claim of an agent they delete, one a failed rename left included', async () => {
    const t = 'tnt_delete_claims';
    await store.agents.create(agentRecord(t, 'agt_two', undefined, { name: 'named' }));
    await claim(t, 'left-over', 'agt_two', NOW.getTime());
    await store.agents.delete(t, 'agt_two');

    expect(await store.agents.idForName(t, 'named', true)).toBeUndefined();
    expect(await store.agents.idForName(t, 'left-over', true)).toBeUndefined();
    expect(await store.agents.countNames(t)).toEqual({ count: 0, exact: true });
  });

  it('both answer a race of two renames to the same name with the agent renamed, and leave one claim', async () => {
    const t = 'tnt_same_rename';
    await store.agents.create(agentRecord(t, 'agt_same', undefined, { name: 'old' }));
    const answers = await Promise.all([1, 2].map(() => store.agents.update(t, 'agt_same', { name: 'new' }, NOW)));

    expect(answers.map((a) => a?.name)).toEqual(['new', 'new']);
    expect(await store.agents.countNames(t)).toEqual({ count: 1, exact: true });
    expect(await store.agents.idForName(t, 'new', true)).toBe('agt_same');
  });

  it('give up the name a rename claimed when the write that renames fails, and take over its own claim a failed rename left a while ago', async () => {
    const t = 'tnt_failed_rename';
    await store.agents.create(agentRecord(t, 'agt_f', undefined, { name: 'before' }));
    const failing: Db = {
      tableName: db.tableName,
      doc: {
        send: async (command: unknown) => {
          if (command instanceof UpdateCommand) throw Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
          return db.doc.send(command as never);
        },
      } as unknown as Db['doc'],
    };
    await expect(agentsRepository(failing).update(t, 'agt_f', { name: 'after' }, NOW)).rejects.toThrow('Throughput exceeded');
    expect(await store.agents.idForName(t, 'after', true)).toBeUndefined();

    await claim(t, 'later', 'agt_f', NOW.getTime() - 5 * 60_000);
    expect(await store.agents.update(t, 'agt_f', { name: 'later' }, NOW)).toMatchObject({ name: 'later' });
    expect((await store.agents.page(t, { limit: 50, skip: 0 })).items.map((a) => a.name)).toEqual(['later']);
  });

  it('never take over the claim of the name a rename just left before it drops it', async () => {
    const t = 'tnt_rename_back';
    await store.agents.create(agentRecord(t, 'agt_back', undefined, { name: 'alpha' }));
    await claim(t, 'alpha', 'agt_back'); // claimed long ago, as before claims had a time
    // A rename to beta has updated the agent and is about to drop alpha's claim when another renames it back.
    let back: Promise<unknown> | undefined;
    const first = agentsHolding(
      (command) => command instanceof DeleteCommand,
      async () => {
        back = store.agents.update(t, 'agt_back', { name: 'alpha' }, new Date(NOW.getTime() + 1000)).catch((err: unknown) => err);
        await back;
      },
    );
    expect(await first.agents.update(t, 'agt_back', { name: 'beta' }, NOW)).toMatchObject({ name: 'beta' });

    expect(first.held()).toBe(true);
    expect(await back).toBeInstanceOf(ServiceUnavailableError);
    const agent = await store.agents.get(t, 'agt_back');
    expect(await store.agents.idForName(t, agent!.name, true)).toBe('agt_back');
    expect(await store.agents.countNames(t)).toEqual({ count: 1, exact: true });
    expect(await store.agents.update(t, 'agt_back', { name: 'alpha' }, new Date(NOW.getTime() + 2000))).toMatchObject({ name: 'alpha' });
  });

  it('never bring back an agent deleted while a worker repairs what looked like a create in progress', async () => {
    const t = 'tnt_repair_delete';
    // A create in progress: its claim is written, its item not yet.
    await claim(t, 'racing', 'agt_racing', NOW.getTime());
    const worker = agentsHolding(
      (command) => command instanceof PutCommand && command.input.Item?.['entity'] === 'agent',
      async () => {
        await store.agents.ensure(agentRecord(t, 'agt_racing', undefined, { name: 'racing' }));
        await store.agents.delete(t, 'agt_racing');
      },
    );
    const resolved = await worker.agents.ensure(agentRecord(t, 'agt_worker', undefined, { name: 'racing' }));

    expect(worker.held()).toBe(true);
    expect(await store.agents.get(t, 'agt_racing')).toBeUndefined();
    expect(resolved).toBe('agt_worker');
    expect(await store.agents.get(t, 'agt_worker')).toMatchObject({ name: 'racing' });
  });

  it('never resolve a name to an agent whose delete began while a worker looked at its claim', async () => {
    const t = 'tnt_repair_deleting';
    await claim(t, 'going', 'agt_going', NOW.getTime());
    // The create in progress finishes, and the agent's delete begins (its marker), before the worker's repair.
    const worker = agentsHolding(
      (command) => command instanceof PutCommand && command.input.Item?.['entity'] === 'agent',
      async () => {
        await store.agents.ensure(agentRecord(t, 'agt_going', undefined, { name: 'going' }));
        await db.doc.send(
          new PutCommand({ TableName: db.tableName, Item: { ...keys.deletedAgent(t, 'agt_going'), entity: 'deletedAgent', agentId: 'agt_going' } }),
        );
      },
    );
    expect(await worker.agents.ensure(agentRecord(t, 'agt_next', undefined, { name: 'going' }))).toBe('agt_next');
    expect(worker.held()).toBe(true);
  });

  it('keep the alert configuration set while the agent is renamed', async () => {
    const t = 'tnt_rename_alerts';
    await store.agents.create(agentRecord(t, 'agt_c', undefined, { name: 'first' }));
    const config = { thresholds: { errorRate: 0.5 } } as Parameters<Store['agents']['setAlertConfig']>[2];
    const renamer = agentsHolding(
      (command) => command instanceof UpdateCommand,
      () => store.agents.setAlertConfig(t, 'agt_c', config, NOW),
    );
    expect(await renamer.agents.update(t, 'agt_c', { name: 'second', description: 'plans trips' }, NOW)).toMatchObject({
      name: 'second',
      description: 'plans trips',
      alertConfig: config,
    });

    expect(renamer.held()).toBe(true);
    expect(await store.agents.get(t, 'agt_c')).toMatchObject({ name: 'second', alertConfig: config });
    expect(await store.agents.idForName(t, 'first', true)).toBeUndefined();
  });
});
