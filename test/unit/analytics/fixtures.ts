import { roundCost } from '#shared/domain/pricing/estimate.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { quantile } from '#shared/domain/spans/views.ts';

import type { Random } from '../../support/random.ts';

export { seededRandom } from '../../support/random.ts';
export type { Random };

export function traceSummary(over: Partial<TraceSummary> = {}): TraceSummary {
  return {
    traceId: 't1',
    agentId: 'agt_1',
    agentName: 'support-bot',
    name: 'answer',
    rootSpanId: 's1',
    status: 'ok',
    startTimeMs: Date.UTC(2024, 0, 1),
    endTimeMs: Date.UTC(2024, 0, 1) + 100,
    durationMs: 100,
    spanCount: 1,
    errorCount: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cost: 0,
    model: null,
    models: [],
    toolNames: [],
    errorTypes: [],
    tags: [],
    metadata: {},
    sessionId: null,
    userId: null,
    experimentId: null,
    variant: null,
    complete: true,
    closedAtMs: null,
    ...over,
  };
}

const AGENTS = ['agt_a', 'agt_b', 'agt_c'];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', null];

/** A trace summary as the worker would see it: some errors, some still open, zero and sub-millisecond latencies among them. */
export function randomTrace(random: Random, i: number, startMs: number, endMs: number): TraceSummary {
  const start = startMs + Math.floor(random.next() * (endMs - startMs));
  const durationMs = random.chance(0.05) ? null : random.chance(0.05) ? 0 : random.chance(0.5) ? random.logUniform(0.05, 600_000) : random.int(1, 30_000);
  const inputTokens = random.int(0, 5000);
  const outputTokens = random.int(0, 2000);
  const model = random.pick(MODELS);
  const agentId = random.pick(AGENTS);
  return traceSummary({
    traceId: `t${i}`,
    agentId,
    agentName: agentId.replace('agt_', 'agent-'),
    status: random.chance(0.15) ? 'error' : 'ok',
    startTimeMs: start,
    endTimeMs: durationMs === null ? null : start + durationMs,
    durationMs,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cost: roundCost(random.next() * random.pick([0, 1e-6, 0.01, 1])),
    model,
    models: model ? [model] : [],
  });
}

export const randomTraces = (random: Random, count: number, startMs: number, endMs: number) =>
  Array.from({ length: count }, (_, i) => randomTrace(random, i, startMs, endMs));

/** |estimate − exact| within 1% of exact (with slack for float rounding at the bucket edges). */
export function withinRelativeError(estimate: number | null, exact: number | null, slackMs = 0): boolean {
  if (estimate === null || exact === null) return estimate === exact;
  return Math.abs(estimate - exact) <= 0.01 * exact * (1 + 1e-9) + slackMs;
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The spec's per-agent metrics computed exactly by scanning trace summaries: the oracle rollups are checked against. */
export function agentMetrics(traces: readonly TraceSummary[]) {
  const requestCount = traces.length;
  const errors = traces.filter((t) => t.status === 'error').length;
  const latencies = traces
    .map((t) => t.durationMs)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  return {
    requestCount,
    successRate: requestCount === 0 ? null : round((requestCount - errors) / requestCount),
    errorRate: requestCount === 0 ? null : round(errors / requestCount),
    avgLatencyMs: latencies.length === 0 ? null : round(latencies.reduce((a, b) => a + b, 0) / latencies.length, 1),
    p95LatencyMs: quantile(latencies, 0.95),
    totalTokens: traces.reduce((sum, t) => sum + t.totalTokens, 0),
    estimatedCost: roundCost(traces.reduce((sum, t) => sum + t.cost, 0)),
  };
}
