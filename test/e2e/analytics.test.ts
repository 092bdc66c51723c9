import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { quantile } from '#shared/domain/spans/views.ts';
import { seededRandom } from '../support/random.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { agentMetrics, withinRelativeError } from '../unit/analytics/fixtures.ts';

const SEED = Number(process.env.ANALYTICS_SEED ?? 7);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MODELS = ['gpt-4o-mini', 'claude-sonnet-4-5', 'gpt-4o'] as const;
const AGENTS = ['planner', 'researcher', 'writer'] as const;

let service: TestService;
let apiKey: string;
/** The exact truth, per trace, as the generator made it. */
const truth: Array<
  Pick<TraceSummary, 'traceId' | 'agentName' | 'status' | 'startTimeMs' | 'durationMs' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cost' | 'model'>
> = [];
const now = Date.now();

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 }) } });
  ({ apiKey } = await service.signUp('analytics@example.com'));

  // 400 traces over the last 3 days, with the last hour well populated (read from minute buckets).
  const r = seededRandom(SEED);
  const spans = [];
  for (let i = 0; i < 400; i++) {
    const startTimeMs = i < 80 ? now - r.int(1, 50) * MINUTE - r.int(0, 59_000) : now - r.int(1, 3 * 24 * 60) * MINUTE - r.int(0, 59_000);
    const durationMs = Math.round(r.logUniform(5, 60_000));
    const agentName = r.pick(AGENTS);
    const model = r.pick(MODELS);
    const inputTokens = r.int(0, 20_000);
    const outputTokens = r.int(0, 4_000);
    const cost = r.int(0, 500_000) / 1e6;
    const status = r.chance(0.15) ? 'error' : 'ok';
    const traceId = `trace-${i}`;
    spans.push(
      { traceId, spanId: 'root', name: 'run', kind: 'agent', agentName, startTime: startTimeMs, endTime: startTimeMs + durationMs, status },
      {
        traceId,
        spanId: 'llm',
        parentSpanId: 'root',
        name: 'call',
        kind: 'llm',
        agentName,
        model,
        inputTokens,
        outputTokens,
        cost,
        startTime: startTimeMs,
        endTime: startTimeMs + Math.floor(durationMs / 2),
      },
    );
    truth.push({ traceId, agentName, status, startTimeMs, durationMs, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cost, model });
  }
  for (let i = 0; i < spans.length; i += 500) {
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: spans.slice(i, i + 500) } })).status).toBe(202);
  }
  // The worker writes each summary's index entries, its agent's last sighting and rollups: on two busy cores that takes a while.
  await service.drainQueues(150_000);
  await service.runSchedule('analytics-compaction');
}, 240_000);
afterAll(() => service?.stop());

/** Query ranges are whole minutes, as analytics buckets are. */
const floorMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;
const within = (startMs: number, endMs: number, agentName?: string) =>
  truth.filter((t) => t.startTimeMs >= startMs && t.startTimeMs < endMs && (!agentName || t.agentName === agentName));

async function agentIdOf(name: string): Promise<string> {
  const agents = (await service.api('GET', '/agents?limit=100', { apiKey })).body.data as Array<{ id: string; name: string }>;
  return agents.find((a) => a.name === name)!.id;
}

const ranges = [
  ['24 hours', floorMinute(now) - DAY, floorMinute(now) + MINUTE],
  ['3 days', floorMinute(now) - 3 * DAY - HOUR, floorMinute(now) + MINUTE],
  ['an old 7-hour slice', floorMinute(now) - 40 * HOUR - 17 * MINUTE, floorMinute(now) - 33 * HOUR + 5 * MINUTE],
] as const;

describe(`analytics equal an exact computation over the raw traces (seed ${SEED})`, () => {
  it.each(ranges)('metrics over %s, overall and per agent', async (_name, startMs, endMs) => {
    const q = `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}`;
    const res = await service.api('GET', `/analytics/metrics?${q}`, { apiKey });
    expect(res.status).toBe(200);
    const m = res.body.data;
    const traces = within(startMs, endMs);
    const exact = agentMetrics(traces as TraceSummary[]);
    expect(m.totalTraces).toBe(traces.length);
    expect(m.successRate).toBe(exact.successRate);
    expect(m.errorRate).toBe(exact.errorRate);
    expect(m.inputTokens).toBe(traces.reduce((s, t) => s + t.inputTokens, 0));
    expect(m.outputTokens).toBe(traces.reduce((s, t) => s + t.outputTokens, 0));
    expect(m.totalTokens).toBe(exact.totalTokens);
    expect(m.totalCost).toBeCloseTo(exact.estimatedCost, 9);
    const latencies = traces.map((t) => t.durationMs!).sort((a, b) => a - b);
    for (const [key, q] of [
      ['p50LatencyMs', 0.5],
      ['p95LatencyMs', 0.95],
      ['p99LatencyMs', 0.99],
    ] as const) {
      expect(withinRelativeError(m[key], quantile(latencies, q), 0.0005), `${key}: ${m[key]} vs ${quantile(latencies, q)}`).toBe(true);
    }
    expect(m.activeAgents).toBe(new Set(traces.map((t) => t.agentName)).size);
    for (const agentName of AGENTS) {
      const row = m.byAgent.find((a: { agentName: string }) => a.agentName === agentName);
      const mine = agentMetrics(within(startMs, endMs, agentName) as TraceSummary[]);
      expect(row, agentName).toMatchObject({
        requestCount: mine.requestCount,
        successRate: mine.successRate,
        errorRate: mine.errorRate,
        totalTokens: mine.totalTokens,
      });
      expect(row.estimatedCost, agentName).toBeCloseTo(mine.estimatedCost, 9);
      expect(Math.abs(row.avgLatencyMs - mine.avgLatencyMs!), agentName).toBeLessThanOrEqual(0.0505);
      expect(withinRelativeError(row.p95LatencyMs, mine.p95LatencyMs, 0.0005), `${agentName} p95: ${row.p95LatencyMs} vs ${mine.p95LatencyMs}`).toBe(true);
    }
  });

  it.each(ranges)('series endpoints over %s add up to the totals, bucket by bucket', async (_name, startMs, endMs) => {
    const q = `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}`;
    const traces = within(startMs, endMs);
    const volume = (await service.api('GET', `/analytics/traces/requests-over-time?${q}`, { apiKey })).body.data;
    expect(volume.series.reduce((s: number, p: { requestCount: number }) => s + p.requestCount, 0)).toBe(traces.length);
    const sf = (await service.api('GET', `/analytics/traces/success-failure?${q}`, { apiKey })).body.data;
    expect(sf.errorCount).toBe(traces.filter((t) => t.status === 'error').length);
    const tokens = (await service.api('GET', `/analytics/traces/token-usage?${q}`, { apiKey })).body.data;
    for (const model of MODELS) {
      const row = tokens.byModel.find((b: { model: string }) => b.model === model);
      const exact = traces.filter((t) => t.model === model).reduce((s, t) => s + t.inputTokens, 0);
      expect(row?.inputTokens ?? 0, model).toBe(exact);
    }
    const costs = (await service.api('GET', `/analytics/costs?${q}`, { apiKey })).body.data;
    expect(costs.currency).toBe('USD');
    expect(costs.totalCost).toBeCloseTo(
      traces.reduce((s, t) => s + t.cost, 0),
      9,
    );
    for (const agentName of AGENTS) {
      const row = costs.byAgent.find((a: { agentName: string }) => a.agentName === agentName);
      const mine = within(startMs, endMs, agentName);
      expect(row.requestCount, agentName).toBe(mine.length);
      expect(row.cost, agentName).toBeCloseTo(
        mine.reduce((s, t) => s + t.cost, 0),
        9,
      );
    }
    const latency = (await service.api('GET', `/analytics/traces/latency-percentiles?${q}`, { apiKey })).body.data;
    const sorted = traces.map((t) => t.durationMs!).sort((a, b) => a - b);
    expect(latency.minMs).toBe(sorted[0]);
    expect(latency.maxMs).toBe(sorted.at(-1));
    expect(withinRelativeError(latency.p90Ms, quantile(sorted, 0.9), 0.0005)).toBe(true);
  });

  it('narrows to one agent, and serves the same figures on the agent itself', async () => {
    const id = await agentIdOf('writer');
    const startMs = floorMinute(now) - 3 * DAY - HOUR;
    const endMs = floorMinute(now) + MINUTE;
    const q = `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}&agentId=${id}`;
    const m = (await service.api('GET', `/analytics/metrics?${q}`, { apiKey })).body.data;
    const mine = within(startMs, endMs, 'writer');
    expect(m.totalTraces).toBe(mine.length);
    const agent = (await service.api('GET', `/agents/${id}`, { apiKey })).body.data;
    expect(agent.metrics.requestCount).toBe(mine.length);
    expect(agent.metrics.totalTokens).toBe(mine.reduce((s, t) => s + t.totalTokens, 0));
  });

  it('lists every agent with the same metrics as the agent itself (the list reads the tenant-wide breakdown)', async () => {
    const listed = (await service.api('GET', '/agents?limit=100', { apiKey })).body.data as Array<{ id: string; metrics: unknown }>;
    expect(listed.length).toBeGreaterThan(1);
    for (const { id, metrics } of listed) {
      expect(metrics).toEqual((await service.api('GET', `/agents/${id}`, { apiKey })).body.data.metrics);
    }
  });

  it.each(ranges)('lists every agent with its metrics over %s when dates are given, as the agent itself has them', async (_name, startMs, endMs) => {
    const q = `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}`;
    const listed = (await service.api('GET', `/agents?limit=100&${q}`, { apiKey })).body.data as Array<{ id: string; name: string; metrics: any }>;
    expect(listed.map((a) => a.name).sort()).toEqual([...AGENTS].sort());
    for (const { id, name, metrics } of listed) {
      const mine = agentMetrics(within(startMs, endMs, name) as TraceSummary[]);
      expect(metrics, name).toMatchObject({
        requestCount: mine.requestCount,
        successRate: mine.successRate,
        errorRate: mine.errorRate,
        totalTokens: mine.totalTokens,
      });
      expect(metrics.estimatedCost, name).toBeCloseTo(mine.estimatedCost, 9);
      expect(withinRelativeError(metrics.p95LatencyMs, mine.p95LatencyMs, 0.0005), `${name} p95`).toBe(true);
      expect((await service.api('GET', `/agents/${id}?${q}`, { apiKey })).body.data.metrics, name).toEqual(metrics);
    }
  });

  it("counts an agent's metrics over the plan's retention without dates, and refuses dates the analytics refuse", async () => {
    const writer = await agentIdOf('writer');
    expect((await service.api('GET', `/agents/${writer}`, { apiKey })).body.data.metrics.requestCount).toBe(
      truth.filter((t) => t.agentName === 'writer').length,
    );
    // endDate alone: the 7 days up to it, as in the analytics.
    const endDate = new Date(floorMinute(now) - 2 * DAY).toISOString();
    const upTo = (await service.api('GET', `/agents/${writer}?endDate=${endDate}`, { apiKey })).body.data.metrics;
    expect(upTo.requestCount).toBe(within(0, floorMinute(now) - 2 * DAY, 'writer').length);
    for (const [path, field] of [
      ['/agents?startDate=yesterday', 'startDate'],
      ['/agents?startDate=2026-11-20&endDate=2026-11-10', 'endDate'],
      [`/agents/${writer}?startDate=2024-01-01&endDate=2026-01-10`, 'startDate'],
      [`/agents/${writer}?endDate=soon`, 'endDate'],
    ] as const) {
      const res = await service.api('GET', path, { apiKey });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('VALIDATION_ERROR');
      expect(res.body.error.message, path).toContain(field);
    }
  });

  it('counts a late trace in an hour already compacted, once, also when it is sent again', async () => {
    const startTimeMs = floorMinute(now) - 2 * DAY + 7 * MINUTE + 123;
    const late = {
      traceId: 'trace-late',
      agentName: 'writer',
      status: 'ok',
      startTimeMs,
      durationMs: 777,
      inputTokens: 11,
      outputTokens: 22,
      totalTokens: 33,
      cost: 0.000042,
      model: 'gpt-4o',
    } as const;
    const span = {
      traceId: late.traceId,
      spanId: 'root',
      name: 'run',
      kind: 'agent',
      agentName: late.agentName,
      model: late.model,
      inputTokens: 11,
      outputTokens: 22,
      cost: late.cost,
      startTime: startTimeMs,
      endTime: startTimeMs + late.durationMs,
    };
    const q = `startDate=${new Date(floorMinute(now) - 3 * DAY).toISOString()}&endDate=${new Date(floorMinute(now) - DAY).toISOString()}`;
    const before = (await service.api('GET', `/analytics/metrics?${q}`, { apiKey })).body.data;
    const writer = (m: typeof before) => m.byAgent.find((a: { agentName: string }) => a.agentName === 'writer');
    for (let sent = 0; sent < 2; sent++) {
      await service.api('POST', '/spans', { apiKey, body: { spans: [span] } });
      await service.drainQueues();
      await service.runSchedule('analytics-compaction');
      const after = (await service.api('GET', `/analytics/metrics?${q}`, { apiKey })).body.data;
      expect(after.totalTraces, `sent ${sent + 1} time(s)`).toBe(before.totalTraces + 1);
      expect(writer(after).requestCount).toBe(writer(before).requestCount + 1);
      expect(after.totalTokens).toBe(before.totalTokens + 33);
    }
    truth.push(late);
  });

  it('counts a trace once when its batch is sent again', async () => {
    const before = (await service.api('GET', '/analytics/metrics', { apiKey })).body.data.totalTraces;
    const span = {
      traceId: 'trace-0',
      spanId: 'root',
      name: 'run',
      kind: 'agent',
      agentName: truth[0]!.agentName,
      startTime: truth[0]!.startTimeMs,
      endTime: truth[0]!.startTimeMs + truth[0]!.durationMs!,
    };
    await service.api('POST', '/spans', { apiKey, body: { spans: [span] } });
    await service.drainQueues();
    await service.runSchedule('analytics-compaction');
    expect((await service.api('GET', '/analytics/metrics', { apiKey })).body.data.totalTraces).toBe(before);
  });

  it.each([
    ['endDate before startDate', 'startDate=2026-02-01&endDate=2026-01-01', 'endDate'],
    ['a range over a year', 'startDate=2024-01-01&endDate=2025-06-01', 'startDate'],
    ['an unknown interval', 'interval=fortnight', 'interval'],
    ['a too fine interval', 'startDate=2026-01-01&endDate=2026-03-01&interval=minute', 'interval'],
    ['a bad date', 'startDate=yesterday', 'startDate'],
  ])('refuses %s with 400 naming the parameter', async (_what, q, param) => {
    const res = await service.api('GET', `/analytics/traces/requests-over-time?${q}`, { apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(param);
  });

  it("answers 404 for another tenant's agent", async () => {
    const { token } = await service.signUp('other-analytics@example.com');
    const id = await agentIdOf('planner');
    expect((await service.api('GET', `/analytics/metrics?agentId=${id}`, { token })).status).toBe(404);
  });

  // Last: it deletes an agent the tests above count.
  it("leaves a deleted agent's traces out of the tenant's totals, in hours compacted and fresh alike", async () => {
    const listTotal = async (startMs: number, endMs: number) =>
      (await service.api('GET', `/spans/traces?startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs - 1).toISOString()}&limit=1`, { apiKey }))
        .body.pagination;
    const left = (startMs: number, endMs: number) => within(startMs, endMs).filter((t) => t.agentName !== 'writer');
    expect((await service.api('DELETE', `/agents/${await agentIdOf('writer')}`, { apiKey })).status).toBe(200);
    // The trace list leaves its traces out at once, before the purge, while it runs and after.
    for (const [name, startMs, endMs] of ranges)
      expect(await listTotal(startMs, endMs), `${name}, deleted`).toMatchObject({ total: left(startMs, endMs).length });
    await service.drainQueues(150_000);
    for (const [name, startMs, endMs] of ranges)
      expect(await listTotal(startMs, endMs), `${name}, purged`).toMatchObject({ total: left(startMs, endMs).length });
    await service.runSchedule('analytics-compaction');
    for (const [name, startMs, endMs] of ranges) {
      const q = `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}`;
      const kept = left(startMs, endMs);
      const metrics = (await service.api('GET', `/analytics/metrics?${q}`, { apiKey })).body.data;
      expect(metrics.totalTraces, name).toBe(kept.length);
      expect(metrics.byAgent.map((a: { agentName: string }) => a.agentName).sort(), name).toEqual(['planner', 'researcher']);
      const costs = (await service.api('GET', `/analytics/costs?${q}`, { apiKey })).body.data;
      expect(costs.totalCost, name).toBeCloseTo(
        kept.reduce((s, t) => s + t.cost, 0),
        9,
      );
      // The trace list's total, counted from the same rollups less the agents deleted lately, agrees once compacted too.
      expect(await listTotal(startMs, endMs), `${name}, compacted`).toMatchObject({ total: kept.length, totalExact: true });
    }
  });
});
