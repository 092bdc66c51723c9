import { ByteReader, ByteWriter } from '../binary.ts';
import type { TraceSummary } from '../spans/summary.ts';
import { bucketStart, type Granularity } from './buckets.ts';
import { LatencySketch } from './sketch.ts';

/** The tenant-wide rollup scope; agent scopes use the agent id. */
export const ALL_AGENTS = '*';

/**
 * Requests, tokens and cost. Cost is in whole nano-dollars (the 1e-9 grid `roundCost` rounds to), so
 * sums are exact integers whatever order rollups are merged in.
 */
export interface Usage {
  requestCount: number;
  inputTokens: number;
  outputTokens: number;
  costNanos: number;
}

/** Latency of the traces that have one (a trace still missing its end has none). */
export interface LatencyStats {
  count: number;
  /** Whole microseconds, exact under merging like the cost. */
  sumUs: number;
  minMs: number | null;
  maxMs: number | null;
  sketch: LatencySketch;
}

/** The mergeable aggregate of a set of traces: one trace is one request. */
export interface Rollup extends Usage {
  successCount: number;
  errorCount: number;
  latency: LatencyStats;
  /**
   * Usage by each trace's primary model (the one with the most tokens), null for traces that name
   * none: a trace summary does not split its tokens and cost between models.
   */
  models: ReadonlyMap<string | null, Usage>;
}

const toNanos = (dollars: number): number => Math.round(dollars * 1e9);
export const dollarsOf = (nanos: number): number => nanos / 1e9;
const toMicros = (ms: number): number => Math.round(ms * 1000);

const NO_USAGE: Usage = { requestCount: 0, inputTokens: 0, outputTokens: 0, costNanos: 0 };

const addUsage = (a: Usage, b: Usage): Usage => ({
  requestCount: a.requestCount + b.requestCount,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  costNanos: a.costNanos + b.costNanos,
});

const sumUsage = (items: readonly Usage[]): Usage => items.reduce(addUsage, NO_USAGE);

const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((total, item) => total + pick(item), 0);

const extreme = (values: readonly (number | null)[], pick: (a: number, b: number) => number): number | null =>
  values.reduce<number | null>((found, v) => (v === null ? found : found === null ? v : pick(found, v)), null);

function usageByModel(entries: Iterable<readonly [string | null, Usage]>): Map<string | null, Usage> {
  const byModel = new Map<string | null, Usage>();
  for (const [model, usage] of entries) byModel.set(model, addUsage(byModel.get(model) ?? NO_USAGE, usage));
  return byModel;
}

function latencyOf(durationsMs: readonly number[]): LatencyStats {
  return {
    count: durationsMs.length,
    sumUs: sum(durationsMs, toMicros),
    minMs: extreme(durationsMs, Math.min),
    maxMs: extreme(durationsMs, Math.max),
    sketch: LatencySketch.of(durationsMs),
  };
}

function mergeLatency(stats: readonly LatencyStats[]): LatencyStats {
  return {
    count: sum(stats, (s) => s.count),
    sumUs: sum(stats, (s) => s.sumUs),
    minMs: extreme(
      stats.map((s) => s.minMs),
      Math.min,
    ),
    maxMs: extreme(
      stats.map((s) => s.maxMs),
      Math.max,
    ),
    sketch: LatencySketch.merge(stats.map((s) => s.sketch)),
  };
}

const usageOfTrace = (t: TraceSummary): Usage => ({
  requestCount: 1,
  inputTokens: t.inputTokens,
  outputTokens: t.outputTokens,
  costNanos: toNanos(t.cost),
});

export function rollupOf(summaries: readonly TraceSummary[]): Rollup {
  const usages = summaries.map(usageOfTrace);
  const errorCount = summaries.filter((t) => t.status === 'error').length;
  return {
    ...sumUsage(usages),
    successCount: summaries.length - errorCount,
    errorCount,
    latency: latencyOf(summaries.map((t) => t.durationMs).filter((d): d is number => d !== null)),
    models: usageByModel(summaries.map((t, i) => [t.model, usages[i]!] as const)),
  };
}

/** The rollup of the union of the rollups' trace sets (which must not overlap). */
export function mergeRollups(rollups: readonly Rollup[]): Rollup {
  return {
    ...sumUsage(rollups),
    successCount: sum(rollups, (r) => r.successCount),
    errorCount: sum(rollups, (r) => r.errorCount),
    latency: mergeLatency(rollups.map((r) => r.latency)),
    models: usageByModel(rollups.flatMap((r) => [...r.models])),
  };
}

export const emptyRollup = (): Rollup => mergeRollups([]);

/** Per key, the merge of the rollups the maps hold under it. */
export function mergeByAgent(maps: Iterable<ReadonlyMap<string, Rollup>>): Map<string, Rollup> {
  const groups = groupBy(
    [...maps].flatMap((map) => [...map]),
    ([key]) => key,
  );
  return new Map([...groups].map(([key, entries]) => [key, mergeRollups(entries.map(([, rollup]) => rollup))]));
}

/** The rollup without its usage by model: all an agent's row in a tenant-wide breakdown needs. */
export const withoutModels = (rollup: Rollup): Rollup => ({ ...rollup, models: new Map() });

/** The items by key, in the order first seen. */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Per bucket start, the traces that started in that bucket. */
export const tracesByBucket = (summaries: readonly TraceSummary[], granularity: Granularity): Map<number, TraceSummary[]> =>
  groupBy(summaries, (t) => bucketStart(t.startTimeMs, granularity));

/** Per bucket start, the rollup of the traces that started in that bucket. */
export const rollupsByBucket = (summaries: readonly TraceSummary[], granularity: Granularity): Map<number, Rollup> =>
  new Map([...tracesByBucket(summaries, granularity)].map(([start, group]) => [start, rollupOf(group)]));

/**
 * The latency at quantile q, within 1% of the exact nearest-rank value. Clamped to the exact min and
 * max, which can only bring it closer (the exact value lies between them).
 */
export function latencyQuantile({ sketch, minMs, maxMs }: LatencyStats, q: number): number | null {
  const estimate = sketch.quantile(q);
  if (estimate === null || minMs === null || maxMs === null) return null;
  return Math.min(Math.max(estimate, minMs), maxMs);
}

export const averageLatencyMs = ({ count, sumUs }: LatencyStats): number | null => (count === 0 ? null : sumUs / count / 1000);

/** No model first, then by code point (locale-independent), so the same rollup always encodes the same. */
const modelOrder = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/** First varint of every encoded rollup, so a future format can be told apart. */
const FORMAT_VERSION = 1;
const TWO_POW_32 = 2 ** 32;

/** The largest double below 2^64: what two 32-bit varints hold. */
const MAX_WHOLE = 2 ** 64 - 2 ** 11;

/**
 * Whole numbers (tokens, nano-dollars, microseconds) as two varints: the low and the high 32 bits.
 * Exact up to 2^53; a sum past 2^64 (trillions of dollars of accepted, estimated cost) is held at the
 * limit rather than failing the rollup, and with it the message that carries the trace.
 */
const writeWhole = (writer: ByteWriter, n: number) => {
  const whole = Math.min(n, MAX_WHOLE);
  return writer.uint32(whole % TWO_POW_32).uint32(Math.floor(whole / TWO_POW_32));
};
const readWhole = (reader: ByteReader) => reader.uint32() + reader.uint32() * TWO_POW_32;

function writeUsage(writer: ByteWriter, u: Usage): void {
  writer.uint32(u.requestCount);
  for (const n of [u.inputTokens, u.outputTokens, u.costNanos]) writeWhole(writer, n);
}

const readUsage = (reader: ByteReader): Usage => ({
  requestCount: reader.uint32(),
  inputTokens: readWhole(reader),
  outputTokens: readWhole(reader),
  costNanos: readWhole(reader),
});

/**
 * A rollup as the bytes DynamoDB stores (a few hundred bytes where named attributes took kilobytes):
 * varints of the counts and sums, the exact min and max latency as doubles, the latency sketch, and
 * the usage by model in code point order. Equal rollups give equal bytes.
 */
export function encodeRollup(rollup: Rollup): Uint8Array {
  const { latency } = rollup;
  const writer = new ByteWriter().uint32(FORMAT_VERSION);
  writeUsage(writer, rollup);
  writer.uint32(rollup.successCount).uint32(rollup.errorCount).uint32(latency.count);
  writeWhole(writer, latency.sumUs);
  if (latency.count > 0) writer.double(latency.minMs!).double(latency.maxMs!);
  writer.bytes(latency.sketch.serialize()).uint32(rollup.models.size);
  for (const [model, usage] of [...rollup.models].sort(([a], [b]) => modelOrder(a, b))) {
    writer.bool(model !== null);
    if (model !== null) writer.string(model);
    writeUsage(writer, usage);
  }
  return writer.finish();
}

/** How many traces a rollup counts, and how many ok and in error. */
export interface TraceCounts {
  requestCount: number;
  successCount: number;
  errorCount: number;
}

/**
 * Only the counts of an encoded rollup, read from the front of its bytes: what a list's total needs,
 * without decoding the latency sketch (most of a decode's time).
 */
export function decodeRollupCounts(encoded: Uint8Array): TraceCounts {
  const reader = new ByteReader(encoded);
  const version = reader.uint32();
  if (version !== FORMAT_VERSION) throw new Error(`unknown rollup format ${version}`);
  const { requestCount } = readUsage(reader);
  return { requestCount, successCount: reader.uint32(), errorCount: reader.uint32() };
}

export function decodeRollup(encoded: Uint8Array): Rollup {
  const reader = new ByteReader(encoded);
  const version = reader.uint32();
  if (version !== FORMAT_VERSION) throw new Error(`unknown rollup format ${version}`);
  const usage = readUsage(reader);
  const successCount = reader.uint32();
  const errorCount = reader.uint32();
  const count = reader.uint32();
  const sumUs = readWhole(reader);
  const [minMs, maxMs] = count > 0 ? [reader.double(), reader.double()] : [null, null];
  const sketch = LatencySketch.deserialize(reader.bytes());
  const models = new Map<string | null, Usage>();
  for (let remaining = reader.uint32(); remaining > 0; remaining--) {
    const model = reader.bool() ? reader.string() : null;
    models.set(model, readUsage(reader));
  }
  return { ...usage, successCount, errorCount, latency: { count, sumUs, minMs, maxMs, sketch }, models };
}

export const NO_TRACES: TraceCounts = { requestCount: 0, successCount: 0, errorCount: 0 };

export const addCounts = (a: TraceCounts, b: TraceCounts, sign: 1 | -1 = 1): TraceCounts => ({
  requestCount: a.requestCount + sign * b.requestCount,
  successCount: a.successCount + sign * b.successCount,
  errorCount: a.errorCount + sign * b.errorCount,
});

export const countsOf = (rollup: TraceCounts): TraceCounts => ({
  requestCount: rollup.requestCount,
  successCount: rollup.successCount,
  errorCount: rollup.errorCount,
});

/**
 * The counts of consecutive sub-buckets (an hour's minutes, a day's hours, a window's days) as
 * bytes: the format, the number of slots, then each slot's ok and error counts as varints (every
 * trace is one or the other), two bytes a quiet slot. A list's total reads a bucket's part from
 * them instead of the part's own buckets.
 */
export function encodeSlotCounts(slots: readonly TraceCounts[]): Uint8Array {
  const writer = new ByteWriter().uint32(FORMAT_VERSION).uint32(slots.length);
  for (const slot of slots) writer.uint32(slot.successCount).uint32(slot.errorCount);
  return writer.finish();
}

export function decodeSlotCounts(encoded: Uint8Array): TraceCounts[] {
  const reader = new ByteReader(encoded);
  const version = reader.uint32();
  if (version !== FORMAT_VERSION) throw new Error(`unknown slot counts format ${version}`);
  return Array.from({ length: reader.uint32() }, () => {
    const successCount = reader.uint32();
    const errorCount = reader.uint32();
    return { requestCount: successCount + errorCount, successCount, errorCount };
  });
}
