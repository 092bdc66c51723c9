import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/store/keys.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } });
});
afterAll(() => service?.stop());

let seq = 0;
const tenant = () => service.signUp(`ingest${++seq}-${Date.now()}@example.com`);

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** An hour ago, whole seconds: trace lists show the plan's retention days, which a fixed date would fall out of one day. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

/**
 * The trace once it holds `spanCount` spans and `signalCount` signals (the worker runs asynchronously;
 * a worker batch stores the signals of its messages after their spans, so a trace can show all its
 * spans a moment before them). The deadline only ends a test that would wait forever: how fast a
 * trace is served is measured by the ingest bench, not here, where a busy machine would make it flaky.
 */
async function waitForTrace(auth: { apiKey?: string; token?: string }, traceId: string, spanCount: number, timeoutMs = 20_000, signalCount = 0) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await service.api('GET', `/spans/traces/${traceId}`, auth);
    if (res.status === 200 && res.body.data.spanCount === spanCount && res.body.data.signals.length >= signalCount) return res.body.data;
    if (Date.now() > deadline)
      throw new Error(`trace ${traceId} did not reach ${spanCount} spans in ${timeoutMs} ms (last ${res.status} ${JSON.stringify(res.body).slice(0, 200)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function nativeTrace(traceId: string, agentName = 'support-bot') {
  return [
    {
      traceId,
      spanId: 'root',
      name: 'answer ticket',
      kind: 'agent',
      agentName,
      startTime: T0,
      endTime: T0 + 4000,
      status: 'ok',
      input: { question: 'Where is my order?' },
      output: 'It ships tomorrow.',
      sessionId: 'sess-1',
    },
    {
      traceId,
      spanId: 'llm-1',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      agentName,
      startTime: new Date(T0 + 100).toISOString(),
      endTime: T0 + 1500,
      model: 'gpt-4o-mini',
      inputTokens: 1000,
      outputTokens: 200,
    },
    {
      traceId,
      spanId: 'tool-1',
      parentSpanId: 'root',
      name: 'lookup order',
      kind: 'tool',
      toolName: 'orders.lookup',
      agentName,
      startTime: T0 + 1600,
      endTime: T0 + 2100,
      status: 'error',
      errorType: 'Timeout',
      statusMessage: 'upstream timed out',
    },
    {
      traceId,
      spanId: 'llm-2',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      agentName,
      startTime: T0 + 2200,
      endTime: T0 + 3900,
      model: 'claude-sonnet-4-5',
      inputTokens: 2000,
      outputTokens: 300,
      reasoningTokens: 120,
      cost: 0.5,
      tags: ['vip'],
      metadata: { tier: 'gold' },
    },
  ];
}

describe('native span ingestion', () => {
  it('accepts a multi-span agent trace and serves it with tokens, cost, duration, status and agent', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const res = await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(traceId) } });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ accepted: 4, rejected: 0, errors: [] });

    const detail = await waitForTrace({ apiKey }, traceId, 4);
    // gpt-4o-mini: 1000 × 0.15 + 200 × 0.60 per million = 0.00027; the Sonnet call brought its own cost.
    expect(detail).toMatchObject({
      traceId,
      name: 'answer ticket',
      agentName: 'support-bot',
      status: 'ok',
      durationMs: 4000,
      spanCount: 4,
      errorCount: 1,
      inputTokens: 3000,
      outputTokens: 500,
      totalTokens: 3500,
      cost: 0.50027,
      sessionId: 'sess-1',
      startTime: new Date(T0).toISOString(),
      endTime: new Date(T0 + 4000).toISOString(),
    });
    expect(detail.spans.map((s: { spanId: string; depth: number }) => [s.spanId, s.depth])).toEqual([
      ['root', 0],
      ['llm-1', 1],
      ['tool-1', 1],
      ['llm-2', 1],
    ]);
    expect(detail.spans[1]).toMatchObject({ cost: 0.00027, costEstimated: true, parentSpanId: 'root' });
    expect(detail.spans[0].input).toBe('{"question":"Where is my order?"}');
    expect(detail.spans[0]).toMatchObject({ reasoningTokens: null, tags: [], metadata: {} });
    expect(detail.spans[3]).toMatchObject({ reasoningTokens: 120, tags: ['vip'], metadata: { tier: 'gold' } });

    // The total counts the trace from the rollups, which the worker writes after the summary.
    await service.drainQueues();
    const list = await service.api('GET', '/spans/traces', { apiKey });
    expect(list.body.data[0]).toMatchObject({ traceId, agentName: 'support-bot', spanCount: 4, totalTokens: 3500, cost: 0.50027 });
    expect(list.body.pagination).toMatchObject({ total: 1, hasMore: false });
  });

  it('stores each span once when the same batch is sent twice', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const body = { spans: nativeTrace(traceId) };
    expect((await service.api('POST', '/spans', { apiKey, body })).status).toBe(202);
    expect((await service.api('POST', '/spans', { apiKey, body })).status).toBe(202);
    await service.drainQueues();
    const detail = await waitForTrace({ apiKey }, traceId, 4);
    expect(detail.spans).toHaveLength(4);
    expect((await service.api('GET', '/spans/traces', { apiKey })).body.data).toHaveLength(1);
  });

  it('builds the same trace whatever order its spans arrive in', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const spans = nativeTrace(traceId);
    for (const span of [spans[3], spans[1], spans[0], spans[2]]) {
      expect((await service.api('POST', '/spans', { apiKey, body: { spans: [span] } })).status).toBe(202);
    }
    const detail = await waitForTrace({ apiKey }, traceId, 4);
    expect(detail).toMatchObject({ name: 'answer ticket', durationMs: 4000, totalTokens: 3500, status: 'ok', complete: true });
  });

  it('accepts the valid spans of a batch and names each invalid one', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const spans = [nativeTrace(traceId)[0], { traceId, name: 'no span id', startTime: T0 }, { ...nativeTrace(traceId)[1], inputTokens: -5 }];
    const res = await service.api('POST', '/spans', { apiKey, body: { spans } });
    expect(res.status).toBe(202);
    expect(res.body.data.accepted).toBe(1);
    expect(res.body.data.rejected).toBe(2);
    expect(res.body.data.errors).toEqual([
      { index: 1, message: expect.stringMatching(/spanId: is required/) },
      { index: 2, message: expect.stringMatching(/inputTokens/) },
    ]);
  });

  it.each([
    ['malformed JSON', { rawBody: '{"spans": [', headers: { 'content-type': 'application/json' } }, /Malformed JSON/],
    ['no spans array', { body: { span: [] } }, /spans/],
    ['an empty batch', { body: { spans: [] } }, /at least one span/],
    [
      '1001 spans',
      { body: { spans: Array.from({ length: 1001 }, (_, i) => ({ traceId: 't', spanId: `s${i}`, name: 'n', startTime: T0 })) } },
      /at most 1000 spans/,
    ],
    ['only invalid spans', { body: { spans: [{ traceId: 't' }] } }, /every item is invalid/],
    ['wrong types', { body: { spans: [{ traceId: 5, spanId: true, name: [], startTime: 'yesterday' }] } }, /invalid/],
    [
      'a body over 5 MB',
      {
        rawBody: JSON.stringify({ spans: [{ traceId: 't', spanId: 's', name: 'n', startTime: T0, input: 'x'.repeat(5.5 * 1024 * 1024) }] }),
        headers: { 'content-type': 'application/json' },
      },
      /exceeds 5 MB/,
    ],
  ])('refuses %s with 400 and stores nothing', async (_what, request, message) => {
    const { apiKey } = await tenant();
    const res = await service.api('POST', '/spans', { apiKey, ...request });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(message);
    await service.drainQueues();
    expect((await service.api('GET', '/spans/traces', { apiKey })).body.data).toEqual([]);
  });

  it('accepts gzip-compressed bodies', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const res = await service.api('POST', '/spans', {
      apiKey,
      rawBody: gzipSync(JSON.stringify({ spans: nativeTrace(traceId) })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(202);
    await waitForTrace({ apiKey }, traceId, 4);
  });

  it('keeps a huge input, truncated with a marker, never silently dropped', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    const span = { ...nativeTrace(traceId)[0], input: 'y'.repeat(300_000) };
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: [span] } })).status).toBe(202);
    const detail = await waitForTrace({ apiKey }, traceId, 1);
    expect(detail.spans[0].input).toMatch(/^y{32768}…\[truncated 267232 characters\]$/);
    // A log message too, as the limits say (it was refused over 32 KB).
    const log = { timestamp: T0, level: 'info', message: 'z'.repeat(100_000), traceId };
    expect((await service.api('POST', '/logs', { apiKey, body: { logs: [log] } })).status).toBe(202);
    await service.drainQueues();
    const [stored] = (await service.api('GET', `/logs?traceId=${traceId}`, { apiKey })).body.data;
    expect(stored.message).toMatch(/^z{32768}…\[truncated 67232 characters\]$/);
  });

  it('needs a credential and keeps tenants apart', async () => {
    const a = await tenant();
    const b = await tenant();
    const traceId = `tr-${hex(8)}`;
    expect((await service.api('POST', '/spans', { body: { spans: nativeTrace(traceId) } })).status).toBe(401);
    await service.api('POST', '/spans', { apiKey: a.apiKey, body: { spans: nativeTrace(traceId) } });
    await waitForTrace({ apiKey: a.apiKey }, traceId, 4);
    expect((await service.api('GET', `/spans/traces/${traceId}`, { apiKey: b.apiKey })).status).toBe(404);
    expect((await service.api('GET', '/spans/traces', { apiKey: b.apiKey })).body.data).toEqual([]);
    const agentOfA = (await service.api('GET', '/agents', { apiKey: a.apiKey })).body.data[0].id;
    expect((await service.api('GET', `/spans/traces?agentId=${agentOfA}`, { apiKey: b.apiKey })).status).toBe(404);
    expect((await service.api('GET', `/agents/${agentOfA}`, { apiKey: b.apiKey })).status).toBe(404);
  });
});

describe('OpenTelemetry SDK exporters, unchanged', () => {
  async function exportWith(makeExporter: (url: string, headers: Record<string, string>) => SpanExporter, apiKey: string) {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'travel-service' }),
      spanProcessors: [new SimpleSpanProcessor(makeExporter(`${service.baseUrl}/v1/traces`, { 'x-api-key': apiKey }))],
    });
    const tracer = provider.getTracer('e2e');
    const agent = tracer.startSpan('invoke_agent planner', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner', 'gen_ai.conversation.id': 'conv-1' },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, agent);
    const llm = tracer.startSpan(
      'chat gpt-4o',
      {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 100 },
      },
      ctx,
    );
    llm.addEvent('gen_ai.evaluation.result', { 'gen_ai.evaluation.name': 'relevance', 'gen_ai.evaluation.score.value': 0.8 });
    llm.end();
    const tool = tracer.startSpan(
      'execute_tool get_weather',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' } },
      ctx,
    );
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    tool.end();
    agent.end();
    await provider.forceFlush();
    await provider.shutdown();
    return agent.spanContext().traceId;
  }

  it.each([
    ['JSON', (url: string, headers: Record<string, string>) => new JsonExporter({ url, headers })],
    ['protobuf', (url: string, headers: Record<string, string>) => new ProtoExporter({ url, headers })],
  ])('the %s exporter delivers an agent trace with tool and LLM spans', async (_format, makeExporter) => {
    const { apiKey } = await tenant();
    const traceId = await exportWith(makeExporter, apiKey);
    const detail = await waitForTrace({ apiKey }, traceId, 3, undefined, 1);
    expect(detail).toMatchObject({
      agentName: 'planner',
      name: 'invoke_agent planner',
      inputTokens: 1000,
      outputTokens: 100,
      cost: 0.0035,
      sessionId: 'conv-1',
      status: 'ok',
      errorCount: 1,
    });
    expect(detail.spans.map((s: { kind: string }) => s.kind)).toEqual(['agent', 'llm', 'tool']);
    // The simple processor exports each span as it ends, children before their agent's span: they are its all the same.
    expect(detail.spans.map((s: { agentName: string | null }) => s.agentName)).toEqual(['planner', 'planner', 'planner']);
    expect(new Set(detail.spans.map((s: { agentId: string | null }) => s.agentId)).size).toBe(1);
    expect(detail.signals).toEqual([expect.objectContaining({ signalName: 'relevance', value: 0.8 })]);
    const agents = (await service.api('GET', '/agents', { apiKey })).body.data.map((a: { name: string }) => a.name);
    expect(agents).toEqual(['planner']);
  });

  it('answers partialSuccess for spans refused individually, in the request encoding', async () => {
    const { apiKey } = await tenant();
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: {},
              spans: [
                { traceId: hex(16), spanId: hex(8), name: 'ok', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000' },
                { traceId: 'zz', spanId: hex(8), name: 'bad id', startTimeUnixNano: '1700000000000000000' },
              ],
            },
          ],
        },
      ],
    };
    const res = await service.api('POST', '/v1/traces', { apiKey, body });
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess).toMatchObject({ rejectedSpans: '1', errorMessage: expect.stringMatching(/traceId/) });
    const bad = await service.api('POST', '/v1/traces', {
      apiKey,
      rawBody: Buffer.from([0x0a, 0xff, 0xff]),
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(bad.status).toBe(400);
    const wrongType = await service.api('POST', '/v1/traces', { apiKey, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(400);
  });
});

describe('logs and signals', () => {
  it('stores logs and signals, linked to their trace and agent, and summarises signals', async () => {
    const { apiKey } = await tenant();
    const traceId = `tr-${hex(8)}`;
    await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(traceId) } });
    await waitForTrace({ apiKey }, traceId, 4);
    const now = Date.now();
    expect(
      (
        await service.api('POST', '/logs', {
          apiKey,
          body: {
            logs: [
              { timestamp: now, level: 'error', message: 'tool timed out', traceId, spanId: 'tool-1' },
              { timestamp: now + 1, level: 'info', message: 'started', agentName: 'support-bot', eventName: 'session.start' },
            ],
          },
        })
      ).status,
    ).toBe(202);
    expect((await service.api('POST', '/signals', { apiKey, body: { signalName: 'user.feedback', value: 1, traceId } })).status).toBe(202);
    expect(
      (
        await service.api('POST', '/signals/batch', {
          apiKey,
          body: { signals: [1, 2, 3, 4].map((value) => ({ signalName: 'latency.score', value, agentName: 'support-bot' })) },
        })
      ).status,
    ).toBe(202);
    // Identical and without a timestamp: each is kept.
    const thumbsUp = { signalName: 'thumbs.up', value: 1, agentName: 'support-bot' };
    expect((await service.api('POST', '/signals/batch', { apiKey, body: { signals: [thumbsUp, thumbsUp, thumbsUp] } })).status).toBe(202);
    await service.drainQueues();
    expect((await service.api('GET', '/signals?signalName=thumbs.up', { apiKey })).body.pagination.total).toBe(3);

    const logs = await service.api('GET', '/logs?level=error', { apiKey });
    // Sent naming the trace alone: the trace's agent's, by id and by name.
    expect(logs.body.data).toEqual([
      expect.objectContaining({ message: 'tool timed out', traceId, agentName: 'support-bot', agentId: expect.stringMatching(/^agt_/) }),
    ]);
    expect((await service.api('GET', `/logs?traceId=${traceId}`, { apiKey })).body.pagination.total).toBe(1);
    expect((await service.api('GET', '/logs?eventName=session.start', { apiKey })).body.data).toEqual([
      expect.objectContaining({ message: 'started', eventName: 'session.start' }),
    ]);
    const ofTrace = await service.api('GET', `/signals/trace/${traceId}`, { apiKey });
    expect(ofTrace.body.data).toEqual([
      expect.objectContaining({ signalName: 'user.feedback', value: 1, agentName: 'support-bot', agentId: expect.stringMatching(/^agt_/) }),
    ]);
    const summary = await service.api('GET', '/signals/summary?signalName=latency.score', { apiKey });
    expect(summary.body.data.groups).toEqual([
      expect.objectContaining({ signalName: 'latency.score', agentName: 'support-bot', count: 4, avg: 2.5, min: 1, max: 4, p50: 2, p95: 4 }),
    ]);
    // A day alone as the end: the default seven days are whole ones, up to that day's end.
    const today = new Date().toISOString().slice(0, 10);
    const ofWeek = await service.api('GET', `/signals/summary?signalName=latency.score&endDate=${today}`, { apiKey });
    expect(ofWeek.body.data).toMatchObject({
      startDate: new Date(Date.parse(today) - 6 * 86_400_000).toISOString(),
      endDate: `${today}T23:59:59.999Z`,
      groups: [expect.objectContaining({ count: 4 })],
    });
    expect((await service.api('GET', '/signals?signalName=latency.score&limit=2', { apiKey })).body.pagination).toEqual({
      total: 4,
      limit: 2,
      skip: 0,
      hasMore: true,
      nextCursor: expect.any(String),
      totalExact: true,
    });
    const detail = await service.api('GET', `/spans/traces/${traceId}`, { apiKey });
    expect(detail.body.data.logs).toHaveLength(1);
    expect(detail.body.data.signals).toHaveLength(1);
    const filters = await service.api('GET', '/spans/filters', { apiKey });
    expect(filters.body.data).toMatchObject({
      agents: [expect.objectContaining({ name: 'support-bot' })],
      models: ['claude-sonnet-4-5', 'gpt-4o-mini'],
      statuses: ['ok'],
      spanKinds: ['agent', 'llm', 'tool'],
      toolNames: ['orders.lookup'],
      signalNames: ['latency.score', 'thumbs.up', 'user.feedback'],
    });
  });

  it('validates list queries: dates, limits, ranges', async () => {
    const { apiKey } = await tenant();
    for (const [path, param] of [
      ['/spans/traces?limit=0', 'limit'],
      ['/spans/traces?startDate=yesterday', 'startDate'],
      ['/logs?startDate=2026-02-01&endDate=2026-01-01', 'endDate'],
      ['/signals?skip=x', 'skip'],
      ['/logs?level=loud', 'level'],
    ]) {
      const res = await service.api('GET', path!, { apiKey });
      expect(res.status, path).toBe(400);
      expect(res.body.error.message).toMatch(param!);
    }
    // A parameter given twice is refused by name: API Gateway joins the values with a comma, which a text
    // filter would take as one value (the tag "a,b") and match nothing.
    for (const path of ['/spans/traces?limit=1&limit=2', '/spans/traces?tag=a&tag=b', '/spans/traces?tag=a&status=ok&tag=b&status=error']) {
      const twice = await service.api('GET', path, { apiKey });
      expect(twice.status, path).toBe(400);
      expect(twice.body.error.message, path).toBe(
        path.includes('status')
          ? 'Invalid query: tag: must be given once; status: must be given once (each parameter takes one value)'
          : `Invalid query: ${path.includes('tag') ? 'tag' : 'limit'}: must be given once (each parameter takes one value)`,
      );
    }
    // A comma in one value is that value's: a tag holding a comma is a tag like any other.
    expect((await service.api('GET', `/spans/traces?tag=${encodeURIComponent('a,b')}`, { apiKey })).status).toBe(200);
    expect((await service.api('GET', '/spans/traces?limit=1,2', { apiKey })).body.error.message).toBe('Invalid query: limit: must be a whole number');
  });
});

describe('agents', () => {
  it('are created implicitly once, explicitly with unique names, carry metrics, and delete with their data', async () => {
    const { apiKey } = await tenant();
    const traces = [`tr-${hex(8)}`, `tr-${hex(8)}`];
    await Promise.all(traces.map((t) => service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(t, 'Router') } })));
    for (const t of traces) await waitForTrace({ apiKey }, t, 4);
    await service.drainQueues();
    await service.runSchedule('analytics-compaction');
    const list = await service.api('GET', '/agents', { apiKey });
    expect(list.body.data).toHaveLength(1);
    const agent = list.body.data[0];
    expect(agent).toMatchObject({ name: 'Router', source: 'implicit', profileSettings: { learningEnabled: true } });
    expect(agent.metrics).toEqual({
      requestCount: 2,
      successRate: 1,
      errorRate: 0,
      avgLatencyMs: 4000,
      p95LatencyMs: 4000,
      totalTokens: 7000,
      estimatedCost: 1.00054,
    });

    const created = await service.api('POST', '/agents', { apiKey, body: { name: 'Planner', description: 'plans trips' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Planner', description: 'plans trips', source: 'explicit', metrics: { requestCount: 0 } });
    expect((await service.api('POST', '/agents', { apiKey, body: { name: 'router' } })).status).toBe(400);
    // One name however its letters are composed (é as one character, or as e and a combining accent).
    expect((await service.api('POST', '/agents', { apiKey, body: { name: 'Café' } })).status).toBe(201);
    const decomposed = await service.api('POST', '/agents', { apiKey, body: { name: 'cafe\u0301' } });
    expect(decomposed.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: an agent named "cafe\u0301" already exists' });
    const tabbed = await service.api('POST', '/agents', { apiKey, body: { name: 'tab\tname' } });
    expect(tabbed.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'Invalid body: name: must not hold control characters (tabs, line breaks, …)' });
    const renamed = await service.api('PUT', `/agents/${created.body.data.id}`, {
      apiKey,
      body: { name: 'Trip planner', profileSettings: { learningEnabled: false } },
    });
    expect(renamed.body.data).toMatchObject({ name: 'Trip planner', profileSettings: { learningEnabled: false } });
    expect((await service.api('PUT', `/agents/${created.body.data.id}`, { apiKey, body: {} })).status).toBe(400);

    expect((await service.api('DELETE', `/agents/${agent.id}`, { apiKey })).status).toBe(200);
    await service.drainQueues();
    expect((await service.api('GET', `/agents/${agent.id}`, { apiKey })).status).toBe(404);
    expect((await service.api('GET', `/spans/traces/${traces[0]}`, { apiKey })).status).toBe(404);
    expect((await service.api('GET', '/spans/traces', { apiKey })).body.data).toEqual([]);
  });
});

describe('plan quotas', () => {
  it('refuses a new agent beyond the plan with 403 naming the limit', async () => {
    const { apiKey } = await tenant();
    for (let i = 0; i < 10; i++) expect((await service.api('POST', '/agents', { apiKey, body: { name: `agent-${i}` } })).status).toBe(201);
    const res = await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`, 'one-too-many') } });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: expect.stringMatching(/Agent limit.*10 agents/) });
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`, 'agent-3') } })).status).toBe(202);
    expect((await service.api('POST', '/agents', { apiKey, body: { name: 'eleventh' } })).status).toBe(403);
  });

  it('holds the agent limit against requests at once, each naming a new agent', async () => {
    const { apiKey, token } = await tenant();
    for (let i = 0; i < 8; i++) expect((await service.api('POST', '/agents', { apiKey, body: { name: `agent-${i}` } })).status).toBe(201);
    // Room for two more: of five creates and five span batches at once, each naming another new agent, two get in.
    const answers = await Promise.all([
      ...[0, 1, 2, 3, 4].map((i) => service.api('POST', '/agents', { apiKey, body: { name: `burst-${i}` } })),
      ...[0, 1, 2, 3, 4].map((i) => service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`, `sender-${i}`) } })),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201 || s === 202)).toHaveLength(2);
    expect(statuses.filter((s) => s === 403)).toHaveLength(8);
    await service.drainQueues();
    expect((await service.api('GET', '/users/profile', { token })).body.resources.agentCount).toBe(10);
    expect((await service.api('GET', '/agents?limit=100', { apiKey })).body.data).toHaveLength(10);
  });

  it('refuses spans beyond the period quota with 403 and counts accepted spans in the profile', async () => {
    const { apiKey, token } = await tenant();
    await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`) } });
    await service.drainQueues();
    const profile = await service.api('GET', '/users/profile', { token });
    expect(profile.body.subscription.spansUsed).toBe(4);
    expect(profile.body.resources.agentCount).toBe(1);

    // Bring the counter to the brink directly in the store rather than sending 10,000 spans.
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    await doc.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME!,
        Key: keys.usage(tenantIdOf(token), profile.body.createdAt),
        UpdateExpression: 'SET spans = :n',
        ExpressionAttributeValues: { ':n': 9_998 },
      }),
    );
    const over = await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`) } });
    expect(over.status).toBe(403);
    expect(over.body.error.message).toMatch(/Span limit reached.*10000 spans/);
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: nativeTrace(`tr-${hex(8)}`).slice(0, 2) } })).status).toBe(202);
    expect((await service.api('GET', '/users/profile', { token })).body.subscription).toMatchObject({ spansUsed: 10_000, usagePercentage: 100 });
  });
});

/** The tenant id is inside the access token (`tid`). */
function tenantIdOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).tid;
}
