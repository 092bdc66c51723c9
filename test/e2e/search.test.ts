import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/store/keys.ts';
import { type BenchAccount, serviceDb, signUp as signUpOnPlan } from '../bench/service.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Search and exports over the local lake (DuckDB), end to end: traces sent to the API, written to the
 * lake by the ingest worker, found by GET /search/traces and POST /search/ask, exported by the lake worker.
 */
let service: TestService;
let owner: BenchAccount;
let other: BenchAccount;
const T0 = Date.now() - 3_600_000;
const hex = () => randomBytes(6).toString('hex');
const ids = { refund: `tr-refund-${hex()}`, declined: `tr-declined-${hex()}`, otherTenant: `tr-other-${hex()}` };
const RARE = `zebra${hex()}`;

function refundTrace(traceId: string, start: number) {
  return [
    {
      traceId,
      spanId: 'root',
      name: 'answer ticket',
      kind: 'agent',
      agentName: 'support-bot',
      startTime: start,
      endTime: start + 4000,
      status: 'ok',
      input: 'Can I get my money back for order 17?',
      output: 'Your refund is on its way.',
      sessionId: 'sess-refund',
    },
    {
      traceId,
      spanId: 'tool-1',
      parentSpanId: 'root',
      name: 'issue refund',
      kind: 'tool',
      toolName: 'payments.refund',
      agentName: 'support-bot',
      startTime: start + 100,
      endTime: start + 900,
      // A lone surrogate (sent as its JSON escape), which the lake's JSON and Parquet writers refuse.
      input: { order: 17, note: 'settled \ud800' },
      output: `refund approved, reference ${RARE}`,
    },
    {
      traceId,
      spanId: 'llm-1',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      agentName: 'support-bot',
      model: 'gpt-4o-mini',
      startTime: start + 1000,
      endTime: start + 3900,
      inputTokens: 1000,
      outputTokens: 200,
    },
  ];
}

function declinedTrace(traceId: string, start: number) {
  return [
    {
      traceId,
      spanId: 'root',
      name: 'charge card',
      kind: 'agent',
      agentName: 'billing-agent',
      startTime: start,
      endTime: start + 30_000,
      status: 'error',
      errorType: 'PaymentError',
      statusMessage: 'Payment declined by the issuer',
      input: 'charge the monthly plan',
      sessionId: 'sess-billing',
    },
    {
      traceId,
      spanId: 'llm-1',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      agentName: 'billing-agent',
      model: 'claude-sonnet-4-5',
      startTime: start + 100,
      endTime: start + 20_000,
      inputTokens: 20_000,
      outputTokens: 3000,
      cost: 2.5,
    },
  ];
}

const search = (account: BenchAccount, q: string) => service.api('GET', `/search/traces?q=${encodeURIComponent(q)}`, { token: account.token });
const foundIds = async (account: BenchAccount, q: string) => {
  const res = await search(account, q);
  expect(res.status, `${q}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  return (res.body.data as Array<{ trace: { traceId: string } }>).map((hit) => hit.trace.traceId).sort();
};

async function untilSearchable(account: BenchAccount, q: string, count: number) {
  const deadline = Date.now() + 60_000;
  while ((await foundIds(account, q)).length < count) {
    if (Date.now() > deadline) throw new Error(`"${q}" did not find ${count} traces in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } });
  owner = await signUpOnPlan(service, 'pro');
  other = await signUpOnPlan(service, 'pro');
  const spans = [...refundTrace(ids.refund, T0), ...declinedTrace(ids.declined, T0 + 60_000)];
  expect((await service.api('POST', '/spans', { apiKey: owner.apiKey, body: { spans } })).status).toBe(202);
  expect((await service.api('POST', '/spans', { apiKey: other.apiKey, body: { spans: refundTrace(ids.otherTenant, T0) } })).status).toBe(202);
  await untilSearchable(owner, '', 2);
  await untilSearchable(other, '', 1);
}, 180_000);
afterAll(() => service?.stop());

describe('GET /search/traces', () => {
  it('finds a trace by a word of its tool result, with the span and words that matched', async () => {
    const res = await search(owner, RARE.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].trace).toMatchObject({ traceId: ids.refund, agentName: 'support-bot' });
    expect(res.body.data[0].match).toMatchObject({ spanId: 'tool-1', spanKind: 'tool' });
    expect(res.body.data[0].match.snippet.toLowerCase()).toContain(RARE);
    expect(res.body.pagination).toEqual({ limit: expect.any(Number), hasMore: false, nextCursor: null });
  });

  it('shows each hit as the trace list shows the trace now: its alerts, tags and metadata too, which the lake does not keep', async () => {
    const res = await search(owner, '');
    const listed = (await service.api('GET', '/spans/traces?limit=100', { token: owner.token })).body.data as Array<{ traceId: string }>;
    expect(res.body.data.length).toBe(2);
    for (const hit of res.body.data) expect(hit.trace).toEqual(listed.find((t) => t.traceId === hit.trace.traceId));
    // The declined payment failed: its alert shows in the hit as in the list.
    expect(res.body.data.find((hit: { trace: { traceId: string } }) => hit.trace.traceId === ids.declined).trace.alertTypes).not.toEqual([]);
  });

  it.each([
    ['"payment declined"', ['declined']],
    ['"declined payment"', []],
    // The root's name ends "card" and its input begins "charge": a phrase does not run from one field into the next.
    ['"card charge"', []],
    ['agent:support-bot', ['refund']],
    ['tool:payments.refund', ['refund']],
    ['tool:payments*', ['refund']],
    ['model:claude-sonnet-4-5', ['declined']],
    ['status:error', ['declined']],
    ['error:declined', ['declined']],
    ['session:sess-refund', ['refund']],
    ['cost>1', ['declined']],
    ['duration>10s', ['declined']],
    ['tokens>10k', ['declined']],
    ['refund agent:support-bot -status:error', ['refund']],
    ['-agent:support-bot', ['declined']],
    ['money tool:payments* duration>1s', ['refund']],
  ] as const)('%s', async (q, expected) => {
    expect(await foundIds(owner, q)).toEqual(expected.map((key) => ids[key]).sort());
  });

  it('returns nothing of another tenant, whatever the query says', async () => {
    expect(await foundIds(other, RARE)).toEqual([ids.otherTenant]);
    for (const q of [`${RARE}' OR 1=1 --`, `" OR tenant_id <> '' OR "`, 'attr.tenant_id:*', `${RARE}) OR (1=1`]) {
      const res = await search(other, q);
      if (res.status === 200) for (const hit of res.body.data) expect(hit.trace.traceId, q).toBe(ids.otherTenant);
      else expect(res.status, q).toBe(400);
    }
  });

  it('answers bad syntax with a 400 that points at the term', async () => {
    const res = await search(owner, 'refund cost>lots');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('cost>lots');
  });

  it('pages with a cursor, newest first', async () => {
    const first = await service.api('GET', '/search/traces?q=&limit=1', { token: owner.token });
    expect(first.body.data.map((h: { trace: { traceId: string } }) => h.trace.traceId)).toEqual([ids.declined]);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await service.api('GET', `/search/traces?q=&limit=1&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, { token: owner.token });
    expect(second.body.data.map((h: { trace: { traceId: string } }) => h.trace.traceId)).toEqual([ids.refund]);
    expect(second.body.pagination.hasMore).toBe(false);
    const stolen = await service.api('GET', `/search/traces?q=&limit=1&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, { token: other.token });
    expect(stolen.status).toBe(400);
  });

  it('is refused with 403 naming the feature on a plan without it', async () => {
    const trial = await service.signUp(`search-trial-${Date.now()}@example.com`);
    const res = await service.api('GET', '/search/traces?q=refund', { token: trial.token });
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).toContain('deepSearch');
  });
});

describe('POST /search/ask', () => {
  it('shows the query it understood, with its results', async () => {
    const res = await service.api('POST', '/search/ask', { token: owner.token, body: { question: 'failed billing-agent runs that cost more than a dollar' } });
    expect(res.status).toBe(200);
    expect(res.body.data.translatedBy).toBe('builtin');
    expect(res.body.data.query.q.split(' ').sort()).toEqual(['agent:billing-agent', 'cost>1', 'status:error']);
    expect(res.body.data.results.map((h: { trace: { traceId: string } }) => h.trace.traceId)).toEqual([ids.declined]);
  });
});

describe('exports', () => {
  const range = () => ({ startDate: new Date(T0 - 86_400_000).toISOString(), endDate: new Date(Date.now() + 60_000).toISOString() });

  async function finished(account: BenchAccount, id: string) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await service.api('GET', `/exports/${id}`, { token: account.token });
      expect(res.status).toBe(200);
      if (res.body.data.status === 'succeeded' || res.body.data.status === 'failed') return res.body.data;
      if (Date.now() > deadline) throw new Error(`export ${id} still ${res.body.data.status} after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it.each(['jsonl', 'csv', 'parquet'] as const)(
    'writes every trace of the range as %s, with its spans, downloadable by its owner only',
    { timeout: 90_000 },
    async (format) => {
      const created = await service.api('POST', '/exports', { token: owner.token, body: { format, ...range() } });
      expect(created.status).toBe(202);
      // Its own id prefix: an experiment's id is exp_, an export's is not mistaken for one.
      expect(created.body.data).toMatchObject({ status: 'queued', id: expect.stringMatching(/^xpt_/) });
      const done = await finished(owner, created.body.data.id);
      expect(done).toMatchObject({ status: 'succeeded', rows: 2 });

      expect((await service.api('GET', `/exports/${done.id}`, { token: other.token })).status).toBe(404);
      expect((await service.api('GET', `/exports/${done.id}/download`, { token: other.token })).status).toBe(404);
      const file = await fetch(`${service.baseUrl}/exports/${done.id}/download`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(file.status).toBe(200);
      const bytes = Buffer.from(await file.arrayBuffer());
      expect(bytes.length).toBe(done.bytes);

      const rows = await rowsOf(format, bytes);
      expect(rows.map((r) => r.trace_id).sort()).toEqual([ids.declined, ids.refund].sort());
      const refund = rows.find((r) => r.trace_id === ids.refund)!;
      const spans =
        typeof refund.spans === 'string' ? (JSON.parse(refund.spans) as Array<Record<string, unknown>>) : (refund.spans as Array<Record<string, unknown>>);
      expect(spans.map((s) => s['span_id'])).toEqual(['root', 'tool-1', 'llm-1']);
      expect(JSON.stringify(spans)).toContain(RARE);
      expect(JSON.stringify(spans)).toContain('settled \ufffd');
    },
  );

  it('exports the traces matching a search only, and lists the exports', { timeout: 90_000 }, async () => {
    const created = await service.api('POST', '/exports', { token: owner.token, body: { format: 'jsonl', q: 'status:error', ...range() } });
    expect(created.status).toBe(202);
    expect(await finished(owner, created.body.data.id)).toMatchObject({ status: 'succeeded', rows: 1 });
    const list = await service.api('GET', '/exports', { token: owner.token });
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(created.body.data.id);
    expect((await service.api('GET', '/exports', { token: other.token })).body.data).toEqual([]);
  });
});

describe('a hit whose trace the table no longer holds', () => {
  it('shows as the lake has it (deleted moments ago, its lake rows not yet), in the shape of every hit', async () => {
    const word = `quince${hex()}`;
    const spans = refundTrace('trace-orphan', T0 + 120_000).map((span) => (span.spanId === 'root' ? { ...span, output: `Refund ${word} sent.` } : span));
    expect((await service.api('POST', '/spans', { apiKey: owner.apiKey, body: { spans } })).status).toBe(202);
    await untilSearchable(owner, word, 1);
    const db = serviceDb();
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.traceSummary(owner.tenantId, 'trace-orphan') }));
    const res = await search(owner, word);
    expect(res.status).toBe(200);
    expect(res.body.data.map((hit: { trace: unknown }) => hit.trace)).toEqual([
      expect.objectContaining({ traceId: 'trace-orphan', agentName: 'support-bot', toolNames: ['payments.refund'], tags: [], metadata: {}, alertTypes: [] }),
    ]);
  });
});

/** The rows of an export file, read back: JSON lines and CSV by parsing, Parquet through DuckDB. */
async function rowsOf(format: 'jsonl' | 'csv' | 'parquet', bytes: Buffer): Promise<Array<Record<string, unknown>>> {
  const dir = await mkdtemp(join(tmpdir(), 'aos-export-'));
  try {
    const path = join(dir, `export.${format}`);
    await writeFile(path, bytes);
    const reader = { jsonl: 'read_json_auto', csv: 'read_csv_auto', parquet: 'read_parquet' }[format];
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      // CSV holds the spans as JSON text; JSON lines and Parquet as a list of records.
      const result = await connection.runAndReadAll(
        `SELECT trace_id, ${format === 'csv' ? 'spans' : 'CAST(to_json(spans) AS VARCHAR)'} AS spans FROM ${reader}('${path}')`,
      );
      return result.getRowObjectsJS().map((row) => ({ trace_id: row['trace_id'], spans: row['spans'] }));
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
