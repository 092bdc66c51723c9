import { BUCKET_MS, bucketStart } from '../analytics/buckets.ts';
import { averageLatencyMs, dollarsOf, latencyQuantile, type Rollup } from '../analytics/rollup.ts';
import { storableSum } from '../spans/model.ts';
import type { StoredSpan, TraceSummary } from '../spans/summary.ts';
import {
  type ErrorPatterns,
  type MaturityLevel,
  type ProfileStatistics,
  type Seasonality,
  type TemporalPatterns,
  type ToolPatterns,
  type Trend,
  type VolumeCharacteristics,
  WEEKDAYS,
  type Weekday,
} from './profile.ts';

/** What one sampled trace tells beyond its summary: its tool calls and error types. */
export interface SampledTrace {
  name: string;
  startTimeMs: number;
  endTimeMs: number | null;
  sessionId: string | null;
  /** In start order. */
  toolCalls: Array<{ tool: string; failed: boolean }>;
  /** The error types its failed spans name; `unknown` when spans failed without naming one. */
  errorTypes: string[];
}

/** The data a profile is learned from: rollups of the window and a sample of its traces. */
export interface LearningEvidence {
  startMs: number;
  endMs: number;
  overall: Rollup;
  /** Per hour bucket start. */
  hourly: ReadonlyMap<number, Rollup>;
  sample: readonly SampledTrace[];
}

/** Tools kept in the distribution; anomaly detection treats any other tool as one the profile never saw. */
const MAX_TOOLS = 50;
const MAX_SEQUENCES = 5;
const MAX_ERROR_TYPES = 5;
const MAX_TRACE_NAMES = 3;
/** A tool called in fewer than 2% of the sampled traces is rare. */
const RARE_TOOL_RATE = 0.02;
/** A tool failing at least 20% of at least 5 calls is failure-prone. */
const FAILURE_PRONE_RATE = 0.2;
const FAILURE_PRONE_MIN_CALLS = 5;
/** A tool called this often within one trace may be looping. */
const REPEATED_CALLS = 5;
/** Each half of the active period needs this many traces for an error trend. */
const TREND_MIN_TRACES = 10;

const UNKNOWN_ERROR_TYPE = 'unknown';

export const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;
export const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : round(part / whole));
export const roundOrNull = (n: number | null, digits: number): number | null => (n === null ? null : round(n, digits));

const isToolCall = (span: StoredSpan) => span.kind === 'tool' || span.toolName !== null;

/**
 * A trace's tool calls and error types. A failure usually propagates up to the parents of the span
 * that raised it without a type of their own; those untyped copies are not counted as another type.
 */
export function sampleTrace(summary: TraceSummary, spans: readonly StoredSpan[]): SampledTrace {
  const ordered = [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs || a.spanId.localeCompare(b.spanId));
  const failed = ordered.filter((s) => s.status === 'error');
  const namedTypes = [...new Set(failed.map((s) => s.errorType).filter((t): t is string => t !== null))];
  return {
    name: summary.name,
    startTimeMs: summary.startTimeMs,
    endTimeMs: summary.endTimeMs,
    sessionId: summary.sessionId,
    toolCalls: ordered.filter(isToolCall).map((s) => ({ tool: s.toolName ?? s.name, failed: s.status === 'error' })),
    errorTypes: namedTypes.length > 0 || failed.length === 0 ? namedTypes : [UNKNOWN_ERROR_TYPE],
  };
}

const countBy = <T>(items: Iterable<T>): Map<T, number> => {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
};

const byKey = (a: string | number, b: string | number) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));

/** Entries by count descending, then by key, so equal data always ranks the same way. */
const ranked = <K extends string | number>(counts: ReadonlyMap<K, number>): Array<[K, number]> =>
  [...counts].sort(([ka, a], [kb, b]) => b - a || byKey(ka, kb));

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Consecutive runs of 2 and 3 distinct tools (repeats of one tool collapsed), each once per trace. */
function sequencesOf(calls: SampledTrace['toolCalls']): Set<string> {
  const tools = calls.map((c) => c.tool).filter((tool, i, all) => i === 0 || all[i - 1] !== tool);
  const found = new Set<string>();
  for (const n of [2, 3]) {
    for (let i = 0; i + n <= tools.length; i++) found.add(JSON.stringify(tools.slice(i, i + n)));
  }
  return found;
}

function toolPatternsOf(sample: readonly SampledTrace[]): ToolPatterns {
  const tools = new Map<string, { calls: number; failed: number; traces: number; mostInOneTrace: number }>();
  for (const trace of sample) {
    for (const [tool, calls] of countBy(trace.toolCalls.map((c) => c.tool))) {
      const usage = tools.get(tool) ?? { calls: 0, failed: 0, traces: 0, mostInOneTrace: 0 };
      usage.calls += calls;
      usage.failed += trace.toolCalls.filter((c) => c.tool === tool && c.failed).length;
      usage.traces += 1;
      usage.mostInOneTrace = Math.max(usage.mostInOneTrace, calls);
      tools.set(tool, usage);
    }
  }
  const totalCalls = [...tools.values()].reduce((sum, t) => sum + t.calls, 0);
  const byCalls = ranked(new Map([...tools].map(([tool, t]) => [tool, t.calls])));
  const distribution = byCalls.slice(0, MAX_TOOLS).map(([tool]) => {
    const t = tools.get(tool)!;
    return { tool, calls: t.calls, callShare: ratio(t.calls, totalCalls), traceRate: ratio(t.traces, sample.length), errorRate: ratio(t.failed, t.calls) };
  });

  // The longer of two equally common sequences says more.
  const sequences = [...countBy(sample.flatMap((t) => [...sequencesOf(t.toolCalls)]))]
    .map(([key, traces]) => ({ key, tools: JSON.parse(key) as string[], traces }))
    .filter((s) => s.traces >= 2)
    .sort((a, b) => b.traces - a.traces || b.tools.length - a.tools.length || a.key.localeCompare(b.key));
  const commonSequences = sequences.slice(0, MAX_SEQUENCES).map((s) => ({ tools: s.tools, traceRate: ratio(s.traces, sample.length) }));

  const anomalousUsage: ToolPatterns['anomalousUsage'] = [];
  for (const [tool] of byCalls) {
    const t = tools.get(tool)!;
    if (t.traces / sample.length < RARE_TOOL_RATE) {
      anomalousUsage.push({ tool, kind: 'rare', detail: `called in ${t.traces} of ${sample.length} sampled traces` });
    }
    if (t.calls >= FAILURE_PRONE_MIN_CALLS && t.failed / t.calls >= FAILURE_PRONE_RATE) {
      anomalousUsage.push({ tool, kind: 'failure-prone', detail: `${t.failed} of its ${t.calls} calls failed` });
    }
    if (t.mostInOneTrace >= REPEATED_CALLS) {
      anomalousUsage.push({ tool, kind: 'repeated', detail: `called up to ${t.mostInOneTrace} times in one trace` });
    }
  }
  return { distribution, commonSequences, anomalousUsage };
}

/** The hours with traffic, the traces per day and how long the agent has been active. */
interface Activity {
  active: Array<[hourStartMs: number, rollup: Rollup]>;
  firstMs: number;
  byDay: Map<number, number>;
  observedDays: number;
}

function activityOf(hourly: ReadonlyMap<number, Rollup>, endMs: number): Activity {
  const active = [...hourly].filter(([, r]) => r.requestCount > 0).sort(([a], [b]) => a - b);
  const firstMs = active[0]?.[0] ?? endMs;
  const byDay = new Map<number, number>();
  for (const [start, r] of active) byDay.set(bucketStart(start, 'day'), (byDay.get(bucketStart(start, 'day')) ?? 0) + r.requestCount);
  const observedDays = Math.max(1, (endMs - firstMs) / BUCKET_MS.day);
  return { active, firstMs, byDay, observedDays };
}

type Tally = { requests: number; errors: number };

function errorTrend(active: ReadonlyArray<[number, Rollup]>, firstMs: number, endMs: number): Trend {
  const middle = (firstMs + endMs) / 2;
  const [earlier, later]: [Tally, Tally] = [
    { requests: 0, errors: 0 },
    { requests: 0, errors: 0 },
  ];
  for (const [start, r] of active) {
    const half = start + BUCKET_MS.hour / 2 <= middle ? earlier : later;
    half.requests += r.requestCount;
    half.errors += r.errorCount;
  }
  if (earlier.requests < TREND_MIN_TRACES || later.requests < TREND_MIN_TRACES) return 'unknown';
  const before = earlier.errors / earlier.requests;
  const after = later.errors / later.requests;
  const meaningful = Math.max(0.02, 0.25 * before);
  if (after - before > meaningful) return 'rising';
  if (before - after > meaningful) return 'falling';
  return 'stable';
}

function errorPatternsOf({ overall, sample, endMs }: LearningEvidence, { active, firstMs }: Activity): ErrorPatterns {
  const types = countBy(sample.flatMap((t) => t.errorTypes));
  const mentions = [...types.values()].reduce((a, b) => a + b, 0);
  return {
    rate: ratio(overall.errorCount, overall.requestCount),
    commonTypes: ranked(types)
      .slice(0, MAX_ERROR_TYPES)
      .map(([type, count]) => ({ type, share: ratio(count, mentions) })),
    trend: errorTrend(active, firstMs, endMs),
  };
}

const coefficientOfVariation = (values: readonly number[]): number => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return 0;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length;
  return Math.sqrt(variance) / mean;
};

/**
 * Uneven enough to be a pattern: a coefficient of variation of at least `floor`, and at least twice
 * what Poisson noise alone gives with this many traces per slot (1/√mean).
 */
const isPattern = (counts: readonly number[], floor: number): boolean => {
  const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
  return mean > 0 && coefficientOfVariation(counts) >= Math.max(floor, 2 / Math.sqrt(mean));
};

function temporalPatternsOf(endMs: number, { active, firstMs, byDay, observedDays }: Activity): TemporalPatterns {
  const byHour = new Array<number>(24).fill(0);
  const byWeekday = new Array<number>(7).fill(0);
  for (const [start, r] of active) {
    const at = new Date(start);
    byHour[at.getUTCHours()]! += r.requestCount;
    byWeekday[at.getUTCDay()]! += r.requestCount;
  }
  const total = byHour.reduce((a, b) => a + b, 0);
  // Per weekday, traces per occurrence of that weekday in the observed period.
  const occurrences = new Array<number>(7).fill(0);
  for (let day = bucketStart(firstMs, 'day'); day < endMs; day += BUCKET_MS.day) occurrences[new Date(day).getUTCDay()]! += 1;
  const perWeekday = byWeekday.map((n, i) => (occurrences[i] ? n / occurrences[i]! : 0));

  let seasonality: Seasonality = 'insufficient-data';
  if (byDay.size >= 2) {
    const daily = isPattern(byHour, 0.5);
    const weekly = observedDays >= 14 && isPattern(perWeekday, 0.25);
    seasonality = daily && weekly ? 'daily-and-weekly' : daily ? 'daily' : weekly ? 'weekly' : 'none';
  }
  const top = (counts: readonly number[], n: number) =>
    ranked(new Map(counts.map((c, i) => [i, c] as const)))
      .filter(([, c]) => c > 0)
      .slice(0, n)
      .map(([i]) => i);
  return {
    timezone: 'UTC',
    volumeByHour: byHour.map((n) => ratio(n, total)),
    volumeByWeekday: Object.fromEntries(WEEKDAYS.map((day, i) => [day, ratio(byWeekday[i]!, total)])) as Record<Weekday, number>,
    peakHours: top(byHour, 3),
    peakWeekdays: top(byWeekday, 2).map((i) => WEEKDAYS[i]!),
    seasonality,
  };
}

function sessionLengthOf(sample: readonly SampledTrace[]): VolumeCharacteristics['sessionLength'] {
  const sessions = new Map<string, SampledTrace[]>();
  for (const t of sample) if (t.sessionId) sessions.set(t.sessionId, [...(sessions.get(t.sessionId) ?? []), t]);
  const groups = [...sessions.values()];
  const span = (traces: SampledTrace[]) => Math.max(...traces.map((t) => t.endTimeMs ?? t.startTimeMs)) - Math.min(...traces.map((t) => t.startTimeMs));
  return { tracesPerSession: median(groups.map((g) => g.length)), durationMs: median(groups.map(span)) };
}

function volumeOf({ overall, sample }: LearningEvidence, { byDay, observedDays }: Activity): VolumeCharacteristics {
  const perTrace = (total: number) => (overall.requestCount === 0 ? 0 : total / overall.requestCount);
  return {
    dailyAverage: round(overall.requestCount / observedDays, 2),
    busiestDay: Math.max(0, ...byDay.values()),
    sessionLength: sessionLengthOf(sample),
    typicalLatency: {
      p50Ms: roundOrNull(latencyQuantile(overall.latency, 0.5), 1),
      p95Ms: roundOrNull(latencyQuantile(overall.latency, 0.95), 1),
      averageMs: roundOrNull(averageLatencyMs(overall.latency), 1),
    },
    costPerTrace: round(perTrace(dollarsOf(overall.costNanos)), 9),
    // The rollups hold their token sums at 2^64, past what the profile's item can store (their cost,
    // in nano-dollars, stays under 2^53 dollars).
    tokensPerTrace: storableSum(round(perTrace(overall.inputTokens + overall.outputTokens), 1)),
  };
}

/** new: under 3 active days; developing: under 10 active days or 500 traces; else established. */
function maturityOf(activeDays: number, traceCount: number): MaturityLevel {
  if (activeDays < 3) return 'new';
  if (activeDays < 10 || traceCount < 500) return 'developing';
  return 'established';
}

export function profileStatistics(evidence: LearningEvidence): ProfileStatistics {
  const { startMs, endMs, overall, hourly, sample } = evidence;
  const activity = activityOf(hourly, endMs);
  const { byDay } = activity;
  return {
    basis: {
      startDate: new Date(startMs).toISOString(),
      endDate: new Date(endMs).toISOString(),
      traceCount: overall.requestCount,
      sampledTraces: sample.length,
      activeDays: byDay.size,
    },
    maturityLevel: maturityOf(byDay.size, overall.requestCount),
    commonTraceNames: ranked(countBy(sample.map((t) => t.name)))
      .slice(0, MAX_TRACE_NAMES)
      .map(([name]) => name),
    toolPatterns: toolPatternsOf(sample),
    errorPatterns: errorPatternsOf(evidence, activity),
    temporalPatterns: temporalPatternsOf(endMs, activity),
    volumeCharacteristics: volumeOf(evidence, activity),
  };
}
