import { describe, expect, it } from 'vitest';
import type { ExperimentRecord, SignalObservation, TraceObservation } from '#shared/domain/experiments/ports.ts';
import { experimentResults } from '#shared/domain/experiments/results.ts';

const experiment = (over: Partial<ExperimentRecord> = {}): ExperimentRecord => ({
  id: 'exp_results',
  tenantId: 'tnt',
  name: 'prompt test',
  description: '',
  agentId: null,
  variants: [
    { key: 'A', weight: 50, config: {} },
    { key: 'B', weight: 50, config: {} },
  ],
  primaryMetric: 'successRate',
  trafficPercentage: 100,
  status: 'running',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  startedAt: '2026-11-20T10:00:00.000Z',
  stoppedAt: null,
  ...over,
});

let seq = 0;
const trace = (variant: string, over: Partial<TraceObservation> = {}): TraceObservation => ({
  traceId: `t${++seq}`,
  variant,
  agentId: 'agt_1',
  startTimeMs: Date.parse('2026-11-20T11:00:00Z'),
  status: 'ok',
  durationMs: 1000,
  totalTokens: 100,
  cost: 0.01,
  complete: true,
  ...over,
});
/** `ok` successful and `failed` failed finished traces of a variant. */
const outcomes = (variant: string, ok: number, failed: number) => [
  ...Array.from({ length: ok }, () => trace(variant)),
  ...Array.from({ length: failed }, () => trace(variant, { status: 'error' })),
];
const signal = (variant: string, signalName: string, value: number): SignalObservation => ({
  signalId: `s${++seq}`,
  traceId: null,
  variant,
  signalName,
  value,
  agentId: 'agt_1',
  timeMs: Date.parse('2026-11-20T11:00:00Z'),
});

describe('experiment results', () => {
  it("count only the experiment's own agent, up to its stop, and nothing of a deleted agent", () => {
    const stoppedAt = '2026-11-20T12:00:00.000Z';
    const stopMs = Date.parse(stoppedAt);
    const stopped = experiment({ agentId: 'agt_1', status: 'stopped', stoppedAt });
    const traces = [
      trace('A', { startTimeMs: stopMs }),
      trace('A', { agentId: null }),
      trace('A', { agentId: 'agt_other' }),
      trace('A', { startTimeMs: stopMs + 1 }),
      trace('A', { agentId: 'agt_deleted' }),
    ];
    const signals = [
      { ...signal('A', 'helpfulness', 1), timeMs: stopMs },
      { ...signal('A', 'helpfulness', 2), agentId: null },
      { ...signal('A', 'helpfulness', 3), agentId: 'agt_other' },
      { ...signal('A', 'helpfulness', 4), timeMs: stopMs + 1 },
    ];
    const [a] = experimentResults(stopped, { traces, signals }).variants;
    expect(a).toMatchObject({ traces: 2, signals: { helpfulness: { count: 2, avg: 1.5 } } });

    const anyAgent = experimentResults(experiment(), { traces, signals }, new Set(['agt_deleted'])).variants[0];
    expect(anyAgent).toMatchObject({ traces: 4, signals: { helpfulness: { count: 4 } } });
  });

  it('measures each variant over its finished traces, and counts what it leaves out', () => {
    const traces = [
      trace('A', { durationMs: 100, totalTokens: 10, cost: 0.001 }),
      trace('A', { durationMs: 200, totalTokens: 30, cost: 0.003, status: 'error' }),
      trace('A', { durationMs: 900, totalTokens: 20, cost: 0.002 }),
      trace('B', { durationMs: 400 }),
      trace('A', { complete: false }),
      trace('Z'),
    ];
    const signals = [signal('A', 'helpfulness', 0.5), signal('A', 'helpfulness', 1), signal('B', 'helpfulness', 0.25), signal('Z', 'helpfulness', 9)];
    const results = experimentResults(experiment(), { traces, signals });
    expect(results.traces).toEqual({ finished: 4, unfinished: 1, unknownVariant: 1 });
    expect(results.control).toBe('A');
    expect(results.variants[0]).toEqual({
      key: 'A',
      weight: 50,
      traces: 3,
      successRate: 0.666667,
      latencyMs: { avg: 400, p50: 200, p95: 900 },
      avgTokens: 20,
      avgCost: 0.002,
      signals: { helpfulness: { count: 2, avg: 0.75 } },
    });
    expect(results.variants[1]).toMatchObject({ key: 'B', traces: 1, successRate: 1, signals: { helpfulness: { count: 1, avg: 0.25 } } });
    // One trace in B: a rate can be compared, a mean cannot.
    expect(results.comparisons[0]!.successRate).not.toBeNull();
    expect(results.comparisons[0]!.latency).toBeNull();
    expect(results.comparisons[0]!.signals).toEqual({ helpfulness: null });
  });

  it('says when there is not enough data yet', () => {
    const results = experimentResults(experiment(), { traces: [...outcomes('A', 8, 2), ...outcomes('B', 12, 0)], signals: [] });
    expect(results.verdict).toEqual({
      outcome: 'insufficient_data',
      message: 'Not enough data yet: each variant needs at least 30 finished traces (A has 10, B has 12)',
    });
  });

  it('reports a significant improvement in success rate with its interval and p-value', () => {
    const results = experimentResults(experiment(), { traces: [...outcomes('A', 20, 20), ...outcomes('B', 36, 4)], signals: [] });
    const rate = results.comparisons[0]!.successRate!;
    expect(rate).toMatchObject({ test: 'two-proportion z-test', control: 0.5, treatment: 0.9, difference: 0.4, relativeDifference: 0.8, significant: true });
    expect(rate.confidenceInterval!.lower).toBeCloseTo(0.2193, 4);
    expect(rate.confidenceInterval!.upper).toBeCloseTo(0.5807, 4);
    expect(rate.pValue).toBeCloseTo(9.46e-5, 6);
    expect(results.sampleRatioMismatch).toMatchObject({ checked: true, mismatch: false, chiSquare: 0, pValue: 1 });
    expect(results.verdict).toEqual({ outcome: 'significant', message: 'Variant B improves success rate by 40.0 points (95% CI 21.9–58.1, p<0.001)' });
  });

  it('says so when there is no significant difference', () => {
    const results = experimentResults(experiment(), { traces: [...outcomes('A', 50, 50), ...outcomes('B', 52, 48)], signals: [] });
    expect(results.comparisons[0]!.successRate!.pValue).toBeCloseTo(0.7773, 4);
    expect(results.verdict).toEqual({
      outcome: 'no_significant_difference',
      message: 'No significant difference in success rate between B and control A (p=0.777)',
    });
  });

  it('flags a sample-ratio mismatch before anything else', () => {
    const results = experimentResults(experiment(), { traces: [...outcomes('A', 150, 150), ...outcomes('B', 180, 20)], signals: [] });
    expect(results.sampleRatioMismatch).toMatchObject({ checked: true, chiSquare: 20, degreesOfFreedom: 1, mismatch: true });
    expect(results.sampleRatioMismatch.pValue).toBeCloseTo(7.74e-6, 7);
    expect(results.verdict.outcome).toBe('sample_ratio_mismatch');
    expect(results.verdict.message).toMatch(/^Sample ratio mismatch: traces split A 300 \/ B 200 against weights 50\/50 \(p<0\.001\)/);
  });

  it('checks the split against unequal weights, and skips the check on tiny samples', () => {
    const weighted = experiment({
      variants: [
        { key: 'A', weight: 80, config: {} },
        { key: 'B', weight: 20, config: {} },
      ],
    });
    expect(experimentResults(weighted, { traces: [...outcomes('A', 400, 0), ...outcomes('B', 100, 0)], signals: [] }).sampleRatioMismatch.mismatch).toBe(false);
    expect(experimentResults(weighted, { traces: [...outcomes('A', 250, 0), ...outcomes('B', 250, 0)], signals: [] }).sampleRatioMismatch.mismatch).toBe(true);
    expect(experimentResults(weighted, { traces: [...outcomes('A', 8, 0), ...outcomes('B', 2, 0)], signals: [] }).sampleRatioMismatch).toEqual({
      checked: false,
      chiSquare: null,
      degreesOfFreedom: null,
      pValue: null,
      mismatch: false,
    });
  });

  it('judges latency by Welch on the means, lower being better', () => {
    const latencies = (variant: string, base: number) => Array.from({ length: 40 }, (_, i) => trace(variant, { durationMs: base + (i % 10) * 20 }));
    const results = experimentResults(experiment({ primaryMetric: 'latency' }), { traces: [...latencies('A', 1000), ...latencies('B', 880)], signals: [] });
    const latency = results.comparisons[0]!.latency!;
    expect(latency).toMatchObject({ test: "Welch's t-test", control: 1090, treatment: 970, difference: -120, significant: true });
    expect(latency.degreesOfFreedom).toBeCloseTo(78, 6);
    expect(results.verdict.outcome).toBe('significant');
    expect(results.verdict.message).toMatch(/^Variant B reduces mean latency by 120 ms \(95% CI \d+–\d+, p<0\.001\)$/);
  });

  it('judges a signal primary metric by its values per variant', () => {
    const scores = (variant: string, values: number[]) => values.map((v) => signal(variant, 'csat', v));
    const traces = [...outcomes('A', 40, 0), ...outcomes('B', 40, 0)];
    const few = experimentResults(experiment({ primaryMetric: 'csat' }), { traces, signals: scores('A', [3, 4]) });
    expect(few.verdict.message).toBe('Not enough data yet: each variant needs at least 30 csat signals (A has 2, B has 0)');
    expect(few.comparisons[0]!.signals).toEqual({ csat: null });

    const a = Array.from({ length: 30 }, (_, i) => 3 + (i % 3) * 0.5);
    const b = Array.from({ length: 30 }, (_, i) => 3.5 + (i % 3) * 0.5);
    const results = experimentResults(experiment({ primaryMetric: 'csat' }), { traces, signals: [...scores('A', a), ...scores('B', b)] });
    expect(results.comparisons[0]!.signals['csat']).toMatchObject({ difference: 0.5, significant: true });
    expect(results.verdict.message).toMatch(/^Variant B raises csat by 0\.5 \(95% CI 0\.\d+–0\.\d+, p<0\.001\)$/);
  });

  it('compares every treatment with the first variant', () => {
    const three = experiment({ variants: ['A', 'B', 'C'].map((key, i) => ({ key, weight: i === 0 ? 40 : 30, config: {} })) });
    const results = experimentResults(three, { traces: [...outcomes('A', 20, 20), ...outcomes('B', 15, 15), ...outcomes('C', 28, 2)], signals: [] });
    expect(results.comparisons.map((c) => c.variant)).toEqual(['B', 'C']);
    expect(results.comparisons[0]!.successRate!.significant).toBe(false);
    expect(results.verdict.message).toMatch(/^Variant C improves success rate by 43\.3 points/);
  });
});
