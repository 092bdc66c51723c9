import { describe, expect, it } from 'vitest';
import { BUCKET_MS, type BucketRef, bucketStart, coveringBuckets, GRANULARITIES, type Granularity, seriesPlan } from '#shared/domain/analytics/buckets.ts';
import { decodeRollup, emptyRollup, encodeRollup, mergeRollups, type Rollup, rollupOf, rollupsByBucket } from '#shared/domain/analytics/rollup.ts';
import {
  type AnalyticsInput,
  agentMetricsOf,
  costsView,
  latencyPercentilesView,
  metricsView,
  requestsOverTimeView,
  successFailureView,
  tokenUsageView,
} from '#shared/domain/analytics/views.ts';
import type { AnalyticsWindow } from '#shared/domain/analytics/window.ts';
import { roundCost } from '#shared/domain/pricing/estimate.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { quantile } from '#shared/domain/spans/views.ts';
import { agentMetrics, randomTraces, seededRandom, traceSummary, withinRelativeError } from './fixtures.ts';

const HOUR = BUCKET_MS.hour;
const DAY = BUCKET_MS.day;
const JAN = Date.UTC(2024, 0, 1);
const window: AnalyticsWindow = { startMs: JAN, endMs: JAN + HOUR, granularity: 'minute' };
const emptyInput: AnalyticsInput = { window, overall: emptyRollup(), buckets: new Map(), agents: [] };

describe('views over no traces', () => {
  it('report zeros for counts and null for rates and latencies', () => {
    expect(metricsView(emptyInput)).toEqual({
      startDate: '2024-01-01T00:00:00.000Z',
      endDate: '2024-01-01T01:00:00.000Z',
      totalTraces: 0,
      successRate: null,
      errorRate: null,
      avgLatencyMs: null,
      p50LatencyMs: null,
      p95LatencyMs: null,
      p99LatencyMs: null,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      totalCost: 0,
      currency: 'USD',
      activeAgents: 0,
      byAgent: [],
    });
    const latency = latencyPercentilesView(emptyInput);
    expect(latency).toMatchObject({ count: 0, avgMs: null, minMs: null, maxMs: null, p50Ms: null, p99Ms: null });
    expect(latency.series[0]).toEqual({
      timestamp: '2024-01-01T00:00:00.000Z',
      count: 0,
      avgMs: null,
      minMs: null,
      maxMs: null,
      p50Ms: null,
      p75Ms: null,
      p90Ms: null,
      p95Ms: null,
      p99Ms: null,
    });
  });

  it('lists an idle agent with null rates and does not count it as active', () => {
    const view = metricsView({ ...emptyInput, agents: [{ agentId: 'agt_1', agentName: 'idle', rollup: emptyRollup() }] });
    expect(view.activeAgents).toBe(0);
    expect(view.byAgent).toEqual([
      {
        agentId: 'agt_1',
        agentName: 'idle',
        requestCount: 0,
        successRate: null,
        errorRate: null,
        avgLatencyMs: null,
        p95LatencyMs: null,
        totalTokens: 0,
        estimatedCost: 0,
      },
    ]);
  });
});

describe('series', () => {
  const busyMinute = JAN + 7 * 60_000;
  const buckets = new Map([[busyMinute, rollupOf([traceSummary({ status: 'error', inputTokens: 5, outputTokens: 1, cost: 0.25, model: 'gpt-4o' })])]]);
  const input = { ...emptyInput, overall: buckets.get(busyMinute)!, buckets };

  it('zero-fills every bucket of the window', () => {
    const view = requestsOverTimeView(input);
    expect(view).toMatchObject({ interval: 'minute', totalTraces: 1 });
    expect(view.series).toHaveLength(60);
    expect(view.series.filter((p) => p.requestCount > 0)).toEqual([{ timestamp: '2024-01-01T00:07:00.000Z', requestCount: 1 }]);
    expect(view.series[0]).toEqual({ timestamp: '2024-01-01T00:00:00.000Z', requestCount: 0 });
  });

  it('gives empty buckets null rates and zero counts', () => {
    const view = successFailureView(input);
    expect(view).toMatchObject({ totalTraces: 1, successCount: 0, errorCount: 1, successRate: 0, errorRate: 1 });
    expect(view.series[0]).toEqual({
      timestamp: '2024-01-01T00:00:00.000Z',
      totalTraces: 0,
      successCount: 0,
      errorCount: 0,
      successRate: null,
      errorRate: null,
    });
    expect(view.series[7]).toMatchObject({ totalTraces: 1, errorRate: 1 });
  });

  it('breaks tokens and costs down per bucket and per model, with the currency', () => {
    expect(tokenUsageView(input)).toMatchObject({
      inputTokens: 5,
      outputTokens: 1,
      totalTokens: 6,
      byModel: [{ model: 'gpt-4o', requestCount: 1, inputTokens: 5, outputTokens: 1, totalTokens: 6 }],
    });
    const costs = costsView(input);
    expect(costs).toMatchObject({ currency: 'USD', totalCost: 0.25, byModel: [{ model: 'gpt-4o', requestCount: 1, cost: 0.25 }], byAgent: [] });
    expect(costs.series[7]).toEqual({ timestamp: '2024-01-01T00:07:00.000Z', requestCount: 1, cost: 0.25 });
  });
});

describe('views over stored rollups, against a scan of the raw traces (seeded)', () => {
  const random = seededRandom(424242);
  const PERIOD_START = JAN;
  const PERIOD_END = JAN + 20 * DAY;
  const traces = randomTraces(random, 4000, PERIOD_START, PERIOD_END);

  /** What the worker would have stored: per granularity and bucket, tenant-wide and per agent, round-tripped through items. */
  const storedFor = (subset: readonly TraceSummary[]) =>
    new Map(GRANULARITIES.map((g) => [g, new Map([...rollupsByBucket(subset, g)].map(([start, r]) => [start, decodeRollup(encodeRollup(r))]))]));
  const agentIds = [...new Set(traces.map((t) => t.agentId!))].sort();
  const tenantStore = storedFor(traces);
  const agentStores = new Map(agentIds.map((id) => [id, storedFor(traces.filter((t) => t.agentId === id))]));
  const read = (store: ReturnType<typeof storedFor>, refs: readonly BucketRef[]): Rollup =>
    mergeRollups(refs.map((b) => store.get(b.granularity)!.get(b.startMs) ?? emptyRollup()));

  const cases = Array.from({ length: 12 }, () => {
    const startMs = PERIOD_START + Math.floor(random.next() * 15 * DAY);
    const endMs = startMs + Math.floor(random.next() * random.pick([2 * HOUR, 3 * DAY, 5 * DAY]));
    return { startMs, endMs, granularity: random.pick<Granularity>(GRANULARITIES) };
  });

  for (const w of cases) {
    it(`answers like a scan for ${new Date(w.startMs).toISOString()} … ${new Date(w.endMs).toISOString()} by ${w.granularity}`, () => {
      const input: AnalyticsInput = {
        window: w,
        overall: read(tenantStore, coveringBuckets(w.startMs, w.endMs)),
        buckets: new Map(seriesPlan(w.startMs, w.endMs, w.granularity).map((p) => [p.startMs, read(tenantStore, p.parts)])),
        agents: agentIds.map((id) => ({ agentId: id, agentName: id, rollup: read(agentStores.get(id)!, coveringBuckets(w.startMs, w.endMs)) })),
      };
      // Analytics resolve to whole minutes: the range widens outward to them.
      const [from, to] = [bucketStart(w.startMs, 'minute'), Math.ceil(w.endMs / 60_000) * 60_000];
      const inRange = (t: TraceSummary, start = from, end = to) => t.startTimeMs >= Math.max(start, from) && t.startTimeMs < Math.min(end, to);
      const scanned = traces.filter((t) => inRange(t));
      const exact = agentMetrics(scanned);
      const latencies = scanned.flatMap((t) => (t.durationMs === null ? [] : [t.durationMs])).sort((a, b) => a - b);

      const metrics = metricsView(input);
      expect(metrics).toMatchObject({
        totalTraces: exact.requestCount,
        successRate: exact.successRate,
        errorRate: exact.errorRate,
        inputTokens: scanned.reduce((s, t) => s + t.inputTokens, 0),
        outputTokens: scanned.reduce((s, t) => s + t.outputTokens, 0),
        totalTokens: exact.totalTokens,
        totalCost: exact.estimatedCost,
        activeAgents: new Set(scanned.map((t) => t.agentId)).size,
      });
      const exactAvg = latencies.length === 0 ? null : latencies.reduce((a, b) => a + b, 0) / latencies.length;
      expect(Math.abs((metrics.avgLatencyMs ?? 0) - (exactAvg ?? 0))).toBeLessThanOrEqual(0.001);
      for (const [q, key] of [
        [0.5, 'p50LatencyMs'],
        [0.95, 'p95LatencyMs'],
        [0.99, 'p99LatencyMs'],
      ] as const) {
        expect(withinRelativeError(metrics[key], quantile(latencies, q), 0.0005), key).toBe(true);
      }

      for (const agent of metrics.byAgent) {
        const scan = agentMetrics(scanned.filter((t) => t.agentId === agent.agentId));
        expect(agent).toMatchObject({
          requestCount: scan.requestCount,
          successRate: scan.successRate,
          errorRate: scan.errorRate,
          totalTokens: scan.totalTokens,
          estimatedCost: scan.estimatedCost,
        });
        expect(withinRelativeError(agent.p95LatencyMs, scan.p95LatencyMs, 0.0005)).toBe(true);
        expect(agentMetricsOf(input.agents.find((a) => a.agentId === agent.agentId)!.rollup)).toMatchObject({ requestCount: scan.requestCount });
      }

      const size = BUCKET_MS[w.granularity];
      const requests = requestsOverTimeView(input);
      for (const point of requests.series) {
        const start = Date.parse(point.timestamp);
        expect(point.requestCount).toBe(traces.filter((t) => inRange(t, start, start + size)).length);
      }
      expect(requests.series.reduce((s, p) => s + p.requestCount, 0)).toBe(scanned.length);

      const byModel = new Map<string | null, TraceSummary[]>();
      for (const t of scanned) byModel.set(t.model, [...(byModel.get(t.model) ?? []), t]);
      const tokens = tokenUsageView(input);
      expect(tokens.byModel).toHaveLength(byModel.size);
      for (const m of tokens.byModel) {
        const group = byModel.get(m.model)!;
        expect(m).toEqual({
          model: m.model,
          requestCount: group.length,
          inputTokens: group.reduce((s, t) => s + t.inputTokens, 0),
          outputTokens: group.reduce((s, t) => s + t.outputTokens, 0),
          totalTokens: group.reduce((s, t) => s + t.totalTokens, 0),
        });
      }

      const costs = costsView(input);
      for (const m of costs.byModel) expect(m.cost).toBe(roundCost(byModel.get(m.model)!.reduce((s, t) => s + t.cost, 0)));
      expect(costs.byAgent.map((a) => a.cost)).toEqual([...costs.byAgent.map((a) => a.cost)].sort((a, b) => b - a));

      const latency = latencyPercentilesView(input);
      expect(latency).toMatchObject({ count: latencies.length, minMs: latencies[0] === undefined ? null : Math.round(latencies[0] * 1000) / 1000 });
      for (const point of latency.series) {
        const start = Date.parse(point.timestamp);
        const inBucket = traces
          .filter((t) => inRange(t, start, start + size) && t.durationMs !== null)
          .map((t) => t.durationMs!)
          .sort((a, b) => a - b);
        expect(point.count).toBe(inBucket.length);
        expect(withinRelativeError(point.p90Ms, quantile(inBucket, 0.9), 0.0005)).toBe(true);
      }

      const outcomes = successFailureView(input);
      expect(outcomes.series.reduce((s, p) => s + p.errorCount, 0)).toBe(scanned.filter((t) => t.status === 'error').length);
    });
  }
});
