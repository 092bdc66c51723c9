import { averageLatencyMs, dollarsOf, latencyQuantile, type Rollup } from '../analytics/rollup.ts';
import { round, roundOrNull, type SampledTrace } from './statistics.ts';

/** What a learning cycle measured over a window: the metrics anchors bound and drift compares. */
export interface WindowMeasurement {
  startMs: number;
  endMs: number;
  traceCount: number;
  errorRate: number | null;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
  costPerTrace: number | null;
  /** Traces whose spans were read. */
  sampledTraces: number;
  /** Per tool seen, the share of the sampled traces that call it. */
  toolUsage: Record<string, number>;
}

export function measureWindow(startMs: number, endMs: number, rollup: Rollup, sample: readonly SampledTrace[]): WindowMeasurement {
  const traces = rollup.requestCount;
  const callers = new Map<string, number>();
  for (const trace of sample) {
    for (const tool of new Set(trace.toolCalls.map((c) => c.tool))) callers.set(tool, (callers.get(tool) ?? 0) + 1);
  }
  return {
    startMs,
    endMs,
    traceCount: traces,
    errorRate: traces === 0 ? null : round(rollup.errorCount / traces),
    averageLatencyMs: roundOrNull(averageLatencyMs(rollup.latency), 1),
    p95LatencyMs: roundOrNull(latencyQuantile(rollup.latency, 0.95), 1),
    costPerTrace: traces === 0 ? null : round(dollarsOf(rollup.costNanos) / traces, 9),
    sampledTraces: sample.length,
    toolUsage: Object.fromEntries([...callers].map(([tool, n]) => [tool, round(n / sample.length)])),
  };
}
