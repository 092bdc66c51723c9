import { describe, expect, it } from 'vitest';
import { LatencySketch } from '#shared/domain/analytics/sketch.ts';
import { ByteWriter } from '#shared/domain/binary.ts';
import { quantile } from '#shared/domain/spans/views.ts';
import { type Random, seededRandom, withinRelativeError } from './fixtures.ts';

const QUANTILES = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1];

const DISTRIBUTIONS: Record<string, (r: Random) => number> = {
  'uniform 1 ms–10 min': (r) => 1 + r.next() * 599_999,
  'log-uniform 0.01 ms–10 min': (r) => r.logUniform(0.01, 600_000),
  'exponential, mean 200 ms': (r) => -200 * Math.log(1 - r.next()),
  'log-normal around 1 s': (r) => Math.exp(Math.log(1000) + Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next())),
  'bimodal cache hits and LLM calls': (r) => (r.chance(0.3) ? r.logUniform(2, 8) : r.logUniform(800, 20_000)),
  'whole milliseconds with zeros': (r) => (r.chance(0.1) ? 0 : r.int(1, 5000)),
  'sub-millisecond': (r) => r.next() * 0.999,
};

const sketchOf = (values: readonly number[]) => LatencySketch.of(values);

function expectAccurate(sketch: LatencySketch, values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  for (const q of QUANTILES) {
    const [estimate, exact] = [sketch.quantile(q), quantile(sorted, q)];
    expect(withinRelativeError(estimate, exact), `q=${q}: ${estimate} vs exact ${exact}`).toBe(true);
  }
}

describe('latency sketch', () => {
  for (const [name, draw] of Object.entries(DISTRIBUTIONS)) {
    describe(name, () => {
      const random = seededRandom(name.length * 7919);
      const samples = [1, 2, 7, 100, 5000, 50_000].map((n) => Array.from({ length: n }, () => draw(random)));

      it('answers every quantile within 1% of the exact nearest-rank value', () => {
        for (const values of samples) expectAccurate(sketchOf(values), values);
      });

      it('stays that accurate after merging many sketches, and equals the sketch of all the values', () => {
        for (const values of samples) {
          const parts = Array.from({ length: 40 }, () => [] as number[]);
          for (const v of values) random.pick(parts).push(v);
          const merged = LatencySketch.merge(random.shuffle(parts).map(sketchOf));
          expectAccurate(merged, values);
          expect(merged.serialize()).toEqual(sketchOf(values).serialize());
        }
      });

      it('survives a serialise/deserialise round trip unchanged', () => {
        for (const values of samples) {
          const encoded = sketchOf(values).serialize();
          const decoded = LatencySketch.deserialize(encoded);
          expect(decoded.serialize()).toEqual(encoded);
          expect(decoded.count).toBe(values.length);
          expectAccurate(decoded, values);
        }
      });
    });
  }

  it('is empty with no values: no quantiles, a tiny encoding', () => {
    const empty = LatencySketch.empty();
    expect(empty.quantile(0.5)).toBeNull();
    expect(empty.count).toBe(0);
    expect(LatencySketch.deserialize(empty.serialize()).quantile(0.99)).toBeNull();
    expect(LatencySketch.merge([]).serialize()).toEqual(empty.serialize());
  });

  it('handles zero and sub-millisecond latencies', () => {
    const sketch = sketchOf([0, 0, 0.2, 0.5, 0.75]);
    expect(sketch.quantile(0.4)).toBe(0);
    expect(withinRelativeError(sketch.quantile(0.6), 0.2)).toBe(true);
    expect(withinRelativeError(sketch.quantile(1), 0.75)).toBe(true);
  });

  it('keeps values of exactly 1 ms merged after sub-millisecond ones (bin key 0, which DDSketch.merge loses)', () => {
    const first = LatencySketch.merge([sketchOf([0.5, 0.5, 0.5]), sketchOf([0.9, 1])]);
    const again = LatencySketch.merge([sketchOf([0.001]), first]);
    expect(again.count).toBe(6);
    expect(withinRelativeError(again.quantile(1), 1)).toBe(true);
    expect(withinRelativeError(again.quantile(5 / 6), 0.9)).toBe(true);
  });

  it('refuses negative and non-finite latencies', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => LatencySketch.of([1, bad])).toThrow(RangeError);
  });

  it('merges and decodes only when read, from the parts as they were', () => {
    const parts = [sketchOf([1, 2, 3]), LatencySketch.deserialize(sketchOf([40, 50]).serialize())];
    const merged = LatencySketch.merge(parts);
    expect(merged.count).toBe(5);
    expect(LatencySketch.merge([merged, merged]).serialize()).toEqual(sketchOf([1, 2, 3, 40, 50, 1, 2, 3, 40, 50]).serialize());
  });

  it('reads the sketches rollups stored before it was built on sketches-js, and writes them byte for byte again', () => {
    // Format 1 as the service's own DDSketch core wrote it for these latencies.
    const stored = Buffer.from('AQJZAVoCXAGeAQECAeQBAYoBAUQBWgFuAdgBAZgDAQ==', 'base64');
    const values = [0, 0, 0.4, 1, 1, 2.5, 12, 12.3, 120, 480, 950, 2300, 7000, 61_000, 3_600_000];
    const read = LatencySketch.deserialize(stored);
    expect([0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1].map((q) => read.quantile(q))).toEqual([
      0, 0, 0.9900000000000001, 12.305344364474507, 2322.0561561045292, 60495.06191943667, 3578495.5323214135, 3578495.5323214135, 3578495.5323214135,
    ]);
    expect(Buffer.from(sketchOf(values).serialize())).toEqual(stored);
    expect(Buffer.from(LatencySketch.merge([read, sketchOf([])]).serialize())).toEqual(stored);
  });

  it('refuses an encoding of an unknown format', () => {
    expect(() => LatencySketch.deserialize(new Uint8Array([2, 0]))).toThrow(/format/);
  });

  it('refuses a corrupt encoding whose keys no value can have, instead of sizing gigabytes for it', () => {
    for (const delta of [2 ** 31 - 1, -(2 ** 31), 100_000_000]) {
      const corrupt = new ByteWriter().uint32(1).uint32(0).sint32(delta).uint32(1).finish();
      expect(() => LatencySketch.deserialize(corrupt).count).toThrow(/corrupt latency sketch/);
    }
    const edges = sketchOf([Number.MIN_VALUE * 2 ** 60, 1e300]);
    expect(LatencySketch.deserialize(edges.serialize()).count).toBe(2);
  });

  it('serialises a million latencies between 1 ms and 10 min in a few kilobytes', () => {
    const random = seededRandom(1);
    for (const draw of [() => random.logUniform(1, 600_000), () => 1 + random.next() * 599_999]) {
      const sketch = LatencySketch.of(Array.from({ length: 1_000_000 }, draw));
      expect(sketch.serialize().length).toBeLessThan(4096);
    }
  });
});
