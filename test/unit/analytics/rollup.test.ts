import { describe, expect, it } from 'vitest';
import { bucketStart } from '#shared/domain/analytics/buckets.ts';
import {
  decodeRollup,
  dollarsOf,
  emptyRollup,
  encodeRollup,
  latencyQuantile,
  mergeByAgent,
  mergeRollups,
  type Rollup,
  rollupOf,
  rollupsByBucket,
  withoutModels,
} from '#shared/domain/analytics/rollup.ts';
import { LatencySketch } from '#shared/domain/analytics/sketch.ts';
import { type Random, randomTraces, seededRandom, traceSummary } from './fixtures.ts';

const JAN = Date.UTC(2024, 0, 1);
/** Rollups compare through their stored form: the encoding is canonical, so equal bytes mean equal rollups. */
const item = (r: Rollup) => encodeRollup(r);

/** Merges in a random tree shape: random pairs of the remaining rollups until one is left. */
function mergeInRandomTree(random: Random, rollups: Rollup[]): Rollup {
  let pending = [...rollups];
  while (pending.length > 1) {
    pending = random.shuffle(pending);
    const take = random.int(2, Math.min(4, pending.length));
    pending = [mergeRollups(pending.slice(0, take)), ...pending.slice(take)];
  }
  return pending[0] ?? emptyRollup();
}

describe('rollupOf', () => {
  it('counts requests, outcomes, tokens, cost, latency and usage by primary model', () => {
    const rollup = rollupOf([
      traceSummary({ status: 'ok', durationMs: 120, inputTokens: 100, outputTokens: 20, cost: 0.0015, model: 'gpt-4o' }),
      traceSummary({ status: 'error', durationMs: 0.4, inputTokens: 50, outputTokens: 0, cost: 0.000000001, model: 'gpt-4o' }),
      traceSummary({ status: 'ok', durationMs: null, endTimeMs: null, inputTokens: 7, outputTokens: 3, cost: 0, model: null }),
    ]);
    expect(rollup).toMatchObject({ requestCount: 3, successCount: 2, errorCount: 1, inputTokens: 157, outputTokens: 23, costNanos: 1_500_001 });
    expect(rollup.latency).toMatchObject({ count: 2, sumUs: 120_400, minMs: 0.4, maxMs: 120 });
    expect([...rollup.models]).toEqual([
      ['gpt-4o', { requestCount: 2, inputTokens: 150, outputTokens: 20, costNanos: 1_500_001 }],
      [null, { requestCount: 1, inputTokens: 7, outputTokens: 3, costNanos: 0 }],
    ]);
    expect(dollarsOf(rollup.costNanos)).toBe(0.001500001);
  });

  it('is empty for no traces: zeros, no latency', () => {
    const empty = rollupOf([]);
    expect(item(empty)).toEqual(item(emptyRollup()));
    expect(empty).toMatchObject({ requestCount: 0, latency: { count: 0, minMs: null, maxMs: null }, models: new Map() });
    expect(latencyQuantile(empty.latency, 0.5)).toBeNull();
  });

  it('answers quantiles clamped to the exact min and max', () => {
    const single = rollupOf([traceSummary({ durationMs: 123.456 })]);
    for (const q of [0, 0.5, 0.99, 1]) expect(latencyQuantile(single.latency, q)).toBe(123.456);
  });
});

describe('mergeRollups', () => {
  it('equals the rollup of the whole set, whatever the split and the merge order (seeded)', () => {
    const random = seededRandom(20240101);
    for (let round = 0; round < 25; round++) {
      const traces = randomTraces(random, random.int(0, 400), JAN, JAN + 86_400_000);
      const parts = Array.from({ length: random.int(1, 12) }, () => [] as typeof traces);
      for (const t of traces) random.pick(parts).push(t);
      const whole = item(rollupOf(traces));
      expect(item(mergeInRandomTree(random, parts.map(rollupOf)))).toEqual(whole);
      expect(item(mergeRollups([...parts].reverse().map(rollupOf)))).toEqual(whole);
    }
  });

  it('is associative and has the empty rollup as identity', () => {
    const random = seededRandom(7);
    const [a, b, c] = [0, 1, 2].map(() => rollupOf(randomTraces(random, 50, JAN, JAN + 3_600_000))) as [Rollup, Rollup, Rollup];
    expect(item(mergeRollups([mergeRollups([a, b]), c]))).toEqual(item(mergeRollups([a, mergeRollups([b, c])])));
    expect(item(mergeRollups([a, emptyRollup()]))).toEqual(item(a));
  });

  it('sums costs exactly where adding dollars would drift', () => {
    const traces = Array.from({ length: 10_000 }, () => traceSummary({ cost: 0.000000123 }));
    const merged = mergeRollups(traces.map((t) => rollupOf([t])));
    expect(merged.costNanos).toBe(1_230_000);
    expect(dollarsOf(merged.costNanos)).toBe(0.00123);
    expect(traces.reduce((sum, t) => sum + t.cost, 0)).not.toBe(0.00123);
  });

  it('does not change the rollups it merges', () => {
    const random = seededRandom(8);
    const a = rollupOf(randomTraces(random, 30, JAN, JAN + 60_000));
    const before = item(a);
    mergeRollups([a, rollupOf(randomTraces(random, 30, JAN, JAN + 60_000))]);
    expect(item(a)).toEqual(before);
  });
});

describe('rollupsByBucket', () => {
  it('rolls traces up by the bucket they started in, and the buckets merge back to the whole', () => {
    const random = seededRandom(9);
    const traces = randomTraces(random, 500, JAN, JAN + 6 * 3_600_000);
    const byHour = rollupsByBucket(traces, 'hour');
    expect([...byHour.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5].map((h) => JAN + h * 3_600_000));
    for (const [start, rollup] of byHour) {
      expect(rollup.requestCount).toBe(traces.filter((t) => bucketStart(t.startTimeMs, 'hour') === start).length);
    }
    expect(item(mergeRollups([...byHour.values()]))).toEqual(item(rollupOf(traces)));
  });
});

describe('mergeByAgent', () => {
  it('merges the rollups under each key, whatever maps they come from', () => {
    const random = seededRandom(12);
    const traces = randomTraces(random, 200, JAN, JAN + 3_600_000);
    const maps = [0, 1, 2].map((i) => new Map(['agt_a', 'agt_b'].map((a) => [a, rollupOf(traces.filter((t, j) => j % 3 === i && t.agentId === a))])));
    const merged = mergeByAgent([...maps, new Map()]);
    expect([...merged.keys()]).toEqual(['agt_a', 'agt_b']);
    for (const a of ['agt_a', 'agt_b']) expect(item(merged.get(a)!)).toEqual(item(rollupOf(traces.filter((t) => t.agentId === a))));
  });
});

describe('encoded rollups', () => {
  it('round-trip exactly, also from a copy of the bytes', () => {
    const random = seededRandom(10);
    for (const count of [0, 1, 300]) {
      const stored = item(rollupOf(randomTraces(random, count, JAN, JAN + 86_400_000)));
      expect(item(decodeRollup(stored))).toEqual(stored);
      expect(item(decodeRollup(Uint8Array.from(Buffer.from(stored))))).toEqual(stored);
    }
  });

  it('keep whole numbers up to 2^53 and latencies to the bit', () => {
    const huge = traceSummary({ inputTokens: 1e12, outputTokens: 2 ** 40 + 1, cost: 2 ** 42 / 1e9 + 0.000000001, durationMs: 0.123456789 });
    const rollup = mergeRollups(Array.from({ length: 3 }, () => rollupOf([huge])));
    expect(decodeRollup(encodeRollup(rollup))).toMatchObject({ inputTokens: 3e12, outputTokens: 3 * (2 ** 40 + 1), costNanos: 3 * (2 ** 42 + 1) });
    expect(decodeRollup(encodeRollup(rollup)).latency).toMatchObject({ minMs: 0.123456789, maxMs: 0.123456789, sumUs: 3 * Math.round(123.456789) });
  });

  it('hold a sum past 2^64 at the limit instead of failing (estimated costs of accepted spans can reach it)', () => {
    const absurd = traceSummary({ inputTokens: 1e12, cost: 2e10 });
    const rollup = mergeRollups(Array.from({ length: 3 }, () => rollupOf([absurd])));
    const decoded = decodeRollup(encodeRollup(rollup));
    expect(decoded.costNanos).toBe(2 ** 64 - 2 ** 11);
    expect(decoded.inputTokens).toBe(3e12);
  });

  it('drop the usage by model when asked to, and only that', () => {
    const rollup = rollupOf(randomTraces(seededRandom(13), 50, JAN, JAN + 60_000));
    expect(withoutModels(rollup).models.size).toBe(0);
    expect(item(withoutModels(rollup)).length).toBeLessThan(item(rollup).length);
    expect({ ...decodeRollup(item(withoutModels(rollup))), latency: null, models: null }).toEqual({ ...rollup, latency: null, models: null });
  });

  it('are the same bytes for the same usage by model, whatever order the models came in', () => {
    const traces = ['gpt-4o', null, '', 'claude'].map((model, i) => traceSummary({ traceId: `m${i}`, model }));
    expect(item(rollupOf(traces))).toEqual(item(rollupOf([...traces].reverse())));
  });

  it('refuse an encoding of an unknown format', () => {
    expect(() => decodeRollup(new Uint8Array([2]))).toThrow(/format/);
  });

  it('stay small with a million latencies from 1 ms to 10 min', () => {
    const random = seededRandom(11);
    const sketch = LatencySketch.of(Array.from({ length: 1_000_000 }, () => random.logUniform(1, 600_000)));
    const rollup = rollupOf(randomTraces(random, 100, JAN, JAN + 60_000));
    expect(item({ ...rollup, latency: { ...rollup.latency, sketch } }).length).toBeLessThan(3 * 1024);
  });
});
