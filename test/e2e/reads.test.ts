import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { seededRandom } from '../support/random.ts';
import { startTestService, type TestService } from '../support/service.ts';

const SEED = Number(process.env.READS_SEED ?? 11);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const AGENTS = ['planner', 'researcher', 'writer'] as const;
const TOOLS = ['search', 'orders.lookup', 'calendar'] as const;

let service: TestService;
let apiKey: string;
let token: string;
const now = Date.now();

/** What the test sent, per trace: the truth the lists, filters and totals are held to. */
interface Sent {
  traceId: string;
  agentName: string | null;
  startTimeMs: number;
  /** Its root ended: counted by the rollups (else listed as pending). */
  finished: boolean;
  status: 'ok' | 'error';
  durationMs: number;
  tool: string;
  errorType: string | null;
  sessionId: string;
  userId: string;
  name: string;
  tags: string[];
  plan: string;
}
const sent: Sent[] = [];

/** The spans of a trace: a root (ended or not) and a tool call. */
function spansOf(t: Sent) {
  const root = {
    traceId: t.traceId,
    spanId: 'root',
    name: t.name,
    kind: 'agent',
    ...(t.agentName ? { agentName: t.agentName } : {}),
    startTime: t.startTimeMs,
    ...(t.finished ? { endTime: t.startTimeMs + t.durationMs } : {}),
    status: t.status,
    sessionId: t.sessionId,
    userId: t.userId,
    tags: t.tags,
    metadata: { plan: t.plan },
    input: `question of ${t.traceId}`,
    output: `answer of ${t.traceId}`,
  };
  const call = {
    traceId: t.traceId,
    spanId: 'tool',
    parentSpanId: 'root',
    name: 'call',
    kind: 'tool',
    toolName: t.tool,
    ...(t.agentName ? { agentName: t.agentName } : {}),
    startTime: t.startTimeMs + 1,
    endTime: t.startTimeMs + 2,
    status: t.errorType ? 'error' : 'ok',
    ...(t.errorType ? { errorType: t.errorType } : {}),
  };
  return [root, call];
}

async function send(traces: readonly Sent[]) {
  sent.push(...traces);
  const spans = traces.flatMap(spansOf);
  for (let i = 0; i < spans.length; i += 500)
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: spans.slice(i, i + 500) } })).status).toBe(202);
  // Summaries with their index entries, sessions, agents' sightings and rollups: on two busy cores that takes a while.
  await service.drainQueues(150_000);
}

let made = 0;
function trace(random: ReturnType<typeof seededRandom>, startTimeMs: number): Sent {
  const failed = random.chance(0.2);
  return {
    traceId: `tr-${String(++made).padStart(4, '0')}`,
    agentName: random.chance(0.1) ? null : random.pick(AGENTS),
    startTimeMs,
    finished: !random.chance(0.1),
    status: failed ? 'error' : 'ok',
    durationMs: random.int(10, 20_000),
    tool: random.pick(TOOLS),
    errorType: failed && random.chance(0.5) ? 'Timeout' : null,
    sessionId: `session-${random.int(1, 8)}`,
    userId: `user-${random.int(1, 4)}`,
    name: random.chance(0.5) ? 'answer ticket' : 'plan trip',
    tags: made % 3 === 0 ? ['vip'] : [],
    plan: made % 2 === 0 ? 'pro' : 'free',
  };
}

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000, strict: 1000 }) } });
  ({ apiKey, token } = await service.signUp('reads@example.com'));
  const random = seededRandom(SEED);
  // 120 traces over the last 5 hours: the older hours are read from hour buckets once compacted, the last two from minutes.
  await send(Array.from({ length: 120 }, () => trace(random, now - random.int(2, 5 * 60) * MINUTE - random.int(0, 59_999))));
  await service.runSchedule('analytics-compaction');
}, 300_000);
afterAll(() => service?.stop());

/**
 * What `ms` of quiet does to the pending traces, done to the table: their last span arrived that much
 * earlier and their close markers are due that much earlier. No request or job can wait an hour.
 */
async function ageTraces(ms: number) {
  const db = createDb(process.env['TABLE_NAME']!, new DynamoDBClient({}));
  const traces = tracesRepository(db);
  for (const marker of await traces.dueToClose(Date.now() + ms, 1000)) {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.traceSummary(marker.tenantId, marker.traceId),
        UpdateExpression: 'SET revision = revision - :ms',
        ExpressionAttributeValues: { ':ms': ms },
      }),
    );
    await traces.rescheduleClose(marker, marker.dueAtMs - ms);
  }
}

const get = async (path: string, credential: { apiKey?: string; token?: string } = { apiKey }) => {
  const res = await service.api('GET', path, credential);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  return res.body as {
    data: any;
    pagination: { total: number; limit: number; skip: number; hasMore: boolean; nextCursor: string | null; totalExact: boolean };
  };
};
const newestFirst = (traces: readonly Sent[]) =>
  [...traces].sort((a, b) => b.startTimeMs - a.startTimeMs || (a.traceId < b.traceId ? 1 : -1)).map((t) => t.traceId);
const iso = (ms: number) => new Date(ms).toISOString();

/** Every page of a list by cursor; `between` runs after each page (new data arriving). */
async function walkByCursor(path: string, between: () => Promise<void> = async () => {}) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await get(`${path}${path.includes('?') ? '&' : '?'}limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    ids.push(...page.data.map((t: { traceId: string }) => t.traceId));
    if (!page.pagination.hasMore) return ids;
    cursor = page.pagination.nextCursor;
    await between();
  }
  throw new Error('the list did not end');
}

describe('trace lists, walked while new traces arrive', () => {
  it('by cursor: every trace that was there once, in order; the new ones are on a new first page', async () => {
    const before = newestFirst(sent);
    const random = seededRandom(SEED + 1);
    let arriving = 0;
    const walked = await walkByCursor('/spans/traces', async () => {
      if (arriving++ < 3) await send([trace(random, Date.now()), trace(random, Date.now())]);
    });
    expect(walked).toEqual(before);
    const first = await get('/spans/traces?limit=6');
    expect(first.data.map((t: { traceId: string }) => t.traceId)).toEqual(newestFirst(sent).slice(0, 6));
  }, 120_000);

  it('by skip, up to a fixed endDate: every trace once, in order', async () => {
    const endMs = Date.now();
    const expected = newestFirst(sent.filter((t) => t.startTimeMs <= endMs));
    const random = seededRandom(SEED + 2);
    const ids: string[] = [];
    for (let skip = 0; ; skip += 9) {
      const page = await get(`/spans/traces?limit=9&skip=${skip}&endDate=${iso(endMs)}`);
      ids.push(...page.data.map((t: { traceId: string }) => t.traceId));
      expect(page.pagination).toMatchObject({ total: expected.length, totalExact: true, skip });
      if (!page.pagination.hasMore) break;
      if (skip < 27) await send([trace(random, Date.now() + 1000)]);
    }
    expect(ids).toEqual(expected);
  }, 120_000);

  it('by cursor with a filter and a key condition together, and by skip from a cursor', async () => {
    const planner = (await get('/agents?limit=100')).data.find((a: { name: string }) => a.name === 'planner').id;
    expect(await walkByCursor(`/spans/traces?agentId=${planner}&status=error`)).toEqual(
      newestFirst(sent.filter((t) => t.agentName === 'planner' && t.status === 'error')),
    );
    expect(await walkByCursor('/spans/traces?toolName=calendar')).toEqual(newestFirst(sent.filter((t) => t.tool === 'calendar')));
    const first = await get('/spans/traces?limit=5');
    const skipped = await get(`/spans/traces?limit=5&skip=3&cursor=${encodeURIComponent(first.pagination.nextCursor!)}`);
    expect(skipped.data.map((t: { traceId: string }) => t.traceId)).toEqual(newestFirst(sent).slice(8, 13));
  });
});

/** The totals of the trace list, all, by status, agent and start time, against an exact count of what was sent. */
async function expectExactTotals() {
  const agents = (await get('/agents?limit=100')).data as Array<{ id: string; name: string }>;
  const idOf = (name: string) => agents.find((a) => a.name === name)!.id;
  const cases: Array<[string, (t: Sent) => boolean]> = [
    ['', () => true],
    ['status=error', (t) => t.status === 'error'],
    ['status=ok', (t) => t.status === 'ok'],
    [`agentId=${idOf('writer')}`, (t) => t.agentName === 'writer'],
    [`agentId=${idOf('planner')}&status=ok`, (t) => t.agentName === 'planner' && t.status === 'ok'],
  ];
  const start = now - 3 * HOUR - 17 * MINUTE - 4321;
  const end = now - 50 * MINUTE + 1234;
  // A day alone as the end means the whole day: a range from today to today lists today's traces.
  const today = iso(now).slice(0, 10);
  const inToday = (t: Sent) => iso(t.startTimeMs).startsWith(today);
  for (const [query, match] of [
    ...cases,
    ...cases.map(
      ([q, m]) => [`${q}&startDate=${iso(start)}&endDate=${iso(end)}`, (t: Sent) => m(t) && t.startTimeMs >= start && t.startTimeMs <= end] as const,
    ),
    [`startDate=${today}&endDate=${today}`, inToday] as const,
  ]) {
    // A page of one reads a few of each list; a page of 50 reads the pending traces to the end and counts them itself;
    // a deeper page (by skip, by cursor) looks the newest finished trace up beside the page.
    const first = (await get(`/spans/traces?limit=1&${query}`)).pagination;
    expect(first, `limit=1&${query}`).toMatchObject({ total: sent.filter(match).length, totalExact: true });
    const pages = [
      `limit=50&${query}`,
      `limit=3&skip=4&${query}`,
      ...(first.nextCursor ? [`limit=1&${query}&cursor=${encodeURIComponent(first.nextCursor)}`] : []),
    ];
    for (const page of pages) {
      const { pagination } = await get(`/spans/traces?${page}`);
      expect(pagination, page).toMatchObject({ total: sent.filter(match).length, totalExact: true });
    }
  }
}

describe('totals', () => {
  it('agree with an exact count: all, by status, agent and start time (ragged minutes and pending traces included)', async () => {
    await expectExactTotals();
    expect(sent.some((t) => !t.finished)).toBe(true);

    // Late traces, in hours already compacted: counted from those hours' minutes until the compaction runs again.
    const random = seededRandom(SEED + 3);
    await send(Array.from({ length: 5 }, () => ({ ...trace(random, now - 4 * HOUR + random.int(0, HOUR)), finished: true })));
    expect((await get('/spans/traces?limit=1')).pagination).toMatchObject({ total: sent.length, totalExact: true });
    expect((await get(`/spans/traces?limit=1&startDate=${iso(now - 5 * HOUR)}&endDate=${iso(now - 3 * HOUR)}`)).pagination).toMatchObject({
      total: sent.filter((t) => t.startTimeMs >= now - 5 * HOUR && t.startTimeMs <= now - 3 * HOUR).length,
      totalExact: true,
    });
  }, 120_000);

  it('stay exact once the closing job has closed the traces that went quiet, which are then listed by status', async () => {
    const unfinished = sent.filter((t) => !t.finished);
    expect((await get(`/spans/traces/${unfinished[0]!.traceId}`)).data).toMatchObject({ complete: false, closedAt: null });
    await ageTraces(2 * HOUR);
    await service.runSchedule('trace-closing');
    await service.drainQueues(60_000);
    await expectExactTotals();
    for (const t of unfinished.slice(0, 3)) {
      const { data } = await get(`/spans/traces/${t.traceId}`);
      expect(data).toMatchObject({ complete: false, closedAt: expect.any(String), status: t.status });
    }
    expect((await get(`/spans/traces/${sent.find((t) => t.finished)!.traceId}`)).data).toMatchObject({ complete: true, closedAt: null });
  }, 120_000);

  it('of free filters: what a bounded count found, exact when it read to the end', async () => {
    for (const [query, match] of [
      ['errorType=Timeout', (t: Sent) => t.errorType === 'Timeout'],
      ['name=plan%20trip', (t: Sent) => t.name === 'plan trip'],
      ['userId=user-2', (t: Sent) => t.userId === 'user-2'],
      ['tag=vip', (t: Sent) => t.tags.includes('vip')],
      ['metadata=plan%3Dpro&tag=vip', (t: Sent) => t.plan === 'pro' && t.tags.includes('vip')],
      ['minDurationMs=10000&status=ok', (t: Sent) => t.finished && t.durationMs >= 10_000 && t.status === 'ok'],
    ] as const) {
      const page = await get(`/spans/traces?limit=100&${query}`);
      expect(
        page.data.map((t: { traceId: string }) => t.traceId),
        query,
      ).toEqual(newestFirst(sent.filter(match)));
      expect(page.pagination, query).toMatchObject({ total: sent.filter(match).length, totalExact: true });
    }
  });

  it('stay exact when the first page holds only traces still arriving, and when a finished one starts ahead of the clock', async () => {
    const random = seededRandom(SEED + 5);
    // Newer than every other trace and unfinished: a page of one shows no finished trace to end the count at.
    await send([{ ...trace(random, Date.now()), finished: false }]);
    expect((await get('/spans/traces?limit=1')).data[0].traceId).toBe(sent.at(-1)!.traceId);
    await expectExactTotals();
    // A client's clock two hours ahead: the first page shows a finished trace that starts after this minute.
    await send([{ ...trace(random, Date.now() + 2 * HOUR), finished: true }]);
    expect((await get('/spans/traces?limit=1')).data[0].traceId).toBe(sent.at(-1)!.traceId);
    await expectExactTotals();
    // And one three hours ahead, unfinished: a page of one shows only it, and the finished one is looked up.
    await send([{ ...trace(random, Date.now() + 3 * HOUR), finished: false }]);
    expect((await get('/spans/traces?limit=1')).data[0].traceId).toBe(sent.at(-1)!.traceId);
    await expectExactTotals();
  }, 120_000);
});

describe('sessions', () => {
  it('list each conversation with its figures, and show its traces in order with input and output', async () => {
    const sessions = sent.reduce((bySession, t) => bySession.set(t.sessionId, [...(bySession.get(t.sessionId) ?? []), t]), new Map<string, Sent[]>());
    const { data, pagination } = await get('/sessions?limit=100');
    expect(pagination).toMatchObject({ total: sessions.size, totalExact: true, hasMore: false });
    const firstSeen = (traces: Sent[]) => Math.min(...traces.map((t) => t.startTimeMs));
    expect(data.map((s: { sessionId: string }) => s.sessionId)).toEqual([...sessions].sort((a, b) => firstSeen(b[1]) - firstSeen(a[1])).map(([id]) => id));
    for (const session of data as Array<{ sessionId: string; traceCount: number; errorCount: number; firstSeenAt: string }>) {
      const traces = sessions.get(session.sessionId)!;
      expect(session).toMatchObject({
        traceCount: traces.length,
        errorCount: traces.filter((t) => t.status === 'error').length,
        firstSeenAt: iso(firstSeen(traces)),
      });
    }
    const [id, traces] = [...sessions][0]!;
    const detail = await get(`/sessions/${id}?limit=100`);
    const inOrder = [...traces].sort((a, b) => a.startTimeMs - b.startTimeMs);
    expect(detail.data.traces.map((t: { traceId: string; input: string; output: string }) => [t.traceId, t.input, t.output])).toEqual(
      inOrder.map((t) => [t.traceId, `question of ${t.traceId}`, `answer of ${t.traceId}`]),
    );
    expect(detail.pagination).toMatchObject({ total: traces.length, totalExact: true });
    expect((await get(`/spans/traces?sessionId=${id}&limit=100`)).data.map((t: { traceId: string }) => t.traceId)).toEqual(newestFirst(traces));
  });
});

describe('refusals', () => {
  it.each([
    ['/spans/traces?toolName=', 'toolName'],
    [`/spans/traces?errorType=${'x'.repeat(257)}`, 'errorType'],
    ['/spans/traces?userId=', 'userId'],
    ['/spans/traces?name=', 'name'],
    ['/spans/traces?minDurationMs=1.5', 'minDurationMs'],
    ['/spans/traces?maxDurationMs=-1', 'maxDurationMs'],
    ['/spans/traces?minDurationMs=500&maxDurationMs=100', 'maxDurationMs'],
    ['/spans/traces?minCost=cheap', 'minCost'],
    ['/spans/traces?minCost=-0.5', 'minCost'],
    ['/spans/traces?minTokens=1e3', 'minTokens'],
    ['/spans/traces?hasAlert=yes', 'hasAlert'],
    ['/spans/traces?tag=', 'tag'],
    ['/spans/traces?metadata=plan', 'metadata'],
    ['/spans/traces?metadata==pro', 'metadata'],
    ['/spans/traces?sessionId=', 'sessionId'],
    ['/spans/traces?status=pending', 'status'],
    ['/spans/traces?skip=10001', 'skip'],
    ['/spans/traces?cursor=not-a-cursor', 'cursor'],
    ['/sessions?userId=', 'userId'],
    ['/sessions?skip=10001', 'skip'],
    ['/logs?cursor=a.b', 'cursor'],
    // A parameter the route does not take, misspelt or not, rather than the list answered whole.
    ['/spans/traces?toolname=search', 'toolname'],
    ['/exports?skip=50', 'skip'],
    ['/agents?agentId=agt_1', 'agentId'],
  ])('%s: 400 naming %s', async (path, parameter) => {
    const res = await service.api('GET', path, { apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(`${parameter}:`);
  });

  it('names the parameter meant when one is misspelt, and those the route takes', async () => {
    const { message } = (await service.api('GET', '/spans/traces?toolname=search', { apiKey })).body.error;
    expect(message).toMatch(/^Invalid query: toolname: is not a parameter of this route \(did you mean toolName\?\); it takes .*toolName/);
  });

  it("refuses another tenant's cursor, or one from other filters, with 400 naming cursor; another tenant's session is not found", async () => {
    const other = await service.signUp('reads-other@example.com');
    const cursor = (await get('/spans/traces?limit=2')).pagination.nextCursor!;
    for (const [path, credential] of [
      [`/spans/traces?limit=2&cursor=${encodeURIComponent(cursor)}`, { apiKey: other.apiKey }],
      [`/spans/traces?limit=2&status=ok&cursor=${encodeURIComponent(cursor)}`, { apiKey }],
      [`/logs?cursor=${encodeURIComponent(cursor)}`, { apiKey }],
    ] as const) {
      const res = await service.api('GET', path, credential);
      expect(res.status, path).toBe(400);
      expect(res.body.error.message, path).toMatch(/cursor: /);
    }
    expect((await service.api('GET', `/sessions/${sent[0]!.sessionId}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await service.api('GET', '/sessions/no-such-session', { apiKey })).status).toBe(404);
  });
});

describe('every other list, by cursor', () => {
  it('logs, signals, alerts, experiments, keys and agents: each item once, newest first (agents by name)', async () => {
    const logs = Array.from({ length: 23 }, (_, i) => ({ timestamp: now - i * 1000, level: i % 4 === 0 ? 'error' : 'info', message: `log ${i}` }));
    const signals = Array.from({ length: 17 }, (_, i) => ({ signalName: i % 2 ? 'score' : 'thumbs', value: i, timestamp: now - i * 1000 }));
    expect((await service.api('POST', '/logs', { apiKey, body: { logs } })).status).toBe(202);
    expect((await service.api('POST', '/signals/batch', { apiKey, body: { signals } })).status).toBe(202);
    for (let i = 0; i < 9; i++) expect((await service.api('POST', '/keys', { token, body: { name: `key ${i}` } })).status).toBe(201);
    for (let i = 0; i < 8; i++) {
      const body = {
        name: `experiment ${i}`,
        variants: [
          { key: 'a', weight: 50 },
          { key: 'b', weight: 50 },
        ],
        primaryMetric: 'successRate',
      };
      expect((await service.api('POST', '/experiments', { apiKey, body })).status).toBe(201);
    }
    await service.drainQueues();

    const walk = async (path: string, credential: { apiKey?: string; token?: string }, idOf: (item: any) => string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      let total = -1;
      do {
        const page = await get(`${path}${path.includes('?') ? '&' : '?'}limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, credential);
        ids.push(...page.data.map(idOf));
        total = page.pagination.total;
        expect(page.pagination.totalExact).toBe(true);
        cursor = page.pagination.nextCursor;
      } while (cursor);
      expect(new Set(ids).size, path).toBe(ids.length);
      expect(ids.length, path).toBe(total);
      return ids;
    };
    const messages = await walk('/logs', { apiKey }, (l) => l.message);
    expect(messages).toEqual(logs.map((l) => l.message));
    expect(await walk('/logs?level=error', { apiKey }, (l) => l.message)).toEqual(logs.filter((l) => l.level === 'error').map((l) => l.message));
    expect((await walk('/signals?signalName=score', { apiKey }, (s) => String(s.value))).map(Number)).toEqual(
      signals.filter((s) => s.signalName === 'score').map((s) => s.value),
    );
    expect((await walk('/signals', { apiKey }, (s) => String(s.value))).length).toBe(signals.length);
    expect((await walk('/experiments', { apiKey }, (e) => e.name)).length).toBe(8);
    expect((await walk('/keys', { token }, (k) => k.id)).length).toBe(10);
    const names = await walk('/agents', { apiKey }, (a) => a.name);
    expect(names).toEqual([...names].sort());
    const alerts = await walk('/spans/alerts', { apiKey }, (a) => a.id);
    expect(alerts.length).toBeGreaterThan(0);
    expect(await walk('/spans/alerts?status=open&type=error', { apiKey }, (a) => a.id)).toEqual(
      (await get('/spans/alerts?limit=100')).data
        .filter((a: { status: string; type: string }) => a.status === 'open' && a.type === 'error')
        .map((a: { id: string }) => a.id),
    );
    const alerted = (await get('/spans/traces?hasAlert=true&limit=100')).data as Array<{ alertTypes: string[] }>;
    expect(alerted.length).toBeGreaterThan(0);
    expect(alerted.every((t) => t.alertTypes.length > 0)).toBe(true);
  });
});
