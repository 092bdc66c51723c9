import { DDSketch as ReferenceSketch } from '@datadog/sketches-js';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../../../shared/domain/binary.ts';
import { DDSketch, DenseBins, LogarithmicMapping } from '../../../shared/domain/analytics/ddsketch.ts';
import { seededRandom } from '../../support/random.ts';

// @datadog/sketches-js and protobufjs are the reference implementations the service's own are held to.
const random = seededRandom(2019);

describe('DDSketch keys and values', () => {
  const ours = new LogarithmicMapping(0.01);
  const reference = new ReferenceSketch({ relativeAccuracy: 0.01 }).mapping;

  it('map every value to the key @datadog/sketches-js maps it to, and every key to the same value', () => {
    const values = [
      ours.minPossible * 1.000001, 1e-300, 1e-9, 0.001, 0.5, 0.999999, 1, 1.000001, 1.02, 2, 3.5, 1000, 60_000, 86_400_000, 1e12, 1e300,
      ...Array.from({ length: 20_000 }, () => random.logUniform(1e-6, 1e10)),
      ...Array.from({ length: 2000 }, (_, i) => Math.pow(ours.gamma, i - 1000)),
    ];
    for (const value of values) {
      const key = ours.key(value);
      expect(key, `key of ${value}`).toBe(reference.key(value));
      expect(ours.value(key), `value of key ${key}`).toBe(reference.value(key));
    }
    expect(ours.gamma).toBe(reference.gamma);
    expect(ours.minPossible).toBe(reference.minPossible);
  });

  it('count zeros apart and rank keys as @datadog/sketches-js does, whatever order values arrive in', () => {
    for (let round = 0; round < 50; round++) {
      const ourSketch = new DDSketch(0.01);
      const referenceSketch = new ReferenceSketch({ relativeAccuracy: 0.01 });
      const drawn = Array.from({ length: random.int(1, 400) }, () => (random.chance(0.1) ? 0 : random.logUniform(0.01, 1e7)));
      // in order, in reverse order and shuffled: the array grows at either end
      const values = round % 3 === 0 ? drawn.sort((a, b) => a - b) : round % 3 === 1 ? drawn.sort((a, b) => b - a) : drawn;
      for (const value of values) {
        ourSketch.accept(value);
        referenceSketch.accept(value);
      }
      expect(ourSketch.zeroCount).toBe(referenceSketch.zeroCount);
      expect(ourSketch.count).toBe(referenceSketch.count);
      for (let rank = 0; rank < ourSketch.store.count; rank++) expect(ourSketch.store.keyAtRank(rank)).toBe(referenceSketch.store.keyAtRank(rank));
      for (let key = ourSketch.store.minKey; key <= ourSketch.store.maxKey; key++) {
        expect(ourSketch.store.countOf(key)).toBe(referenceSketch.store.bins[key - referenceSketch.store.offset] ?? 0);
      }
    }
  });

  it('refuses negative and non-numeric values; a store can be sized before it is filled', () => {
    const sketch = new DDSketch(0.01);
    expect(() => sketch.accept(-1)).toThrow(RangeError);
    expect(() => sketch.accept(Number.NaN)).toThrow(RangeError);
    expect(() => sketch.accept(1, 0)).toThrow(RangeError);
    expect(() => new LogarithmicMapping(0)).toThrow(RangeError);
    const bins = new DenseBins();
    bins.cover(-5, 5);
    expect([bins.minKey, bins.maxKey, bins.count]).toEqual([-5, 5, 0]);
    bins.add(7, 2);
    bins.add(-6, 1);
    expect([bins.minKey, bins.maxKey, bins.count, bins.countOf(7), bins.countOf(-6), bins.countOf(0), bins.countOf(99)]).toEqual([-6, 7, 3, 2, 1, 0, 0]);
    expect([bins.keyAtRank(0), bins.keyAtRank(1), bins.keyAtRank(2), bins.keyAtRank(5)]).toEqual([-6, 7, 7, 7]);
  });
});

describe('binary encoding', () => {
  type Op = ['uint32' | 'sint32' | 'double' | 'bool' | 'string' | 'bytes', unknown];
  const ops = (): Op[] =>
    Array.from({ length: 200 }, (): Op => {
      switch (random.below(6)) {
        case 0: return ['uint32', random.pick([0, 1, 127, 128, 16_383, 16_384, 2 ** 31, 2 ** 32 - 1, random.int(0, 2 ** 32 - 1)])];
        case 1: return ['sint32', random.pick([0, -1, 1, -64, 64, -(2 ** 31), 2 ** 31 - 1, random.int(-(2 ** 31), 2 ** 31 - 1)])];
        case 2: return ['double', random.pick([0, -0, 1.5, Math.PI, 1e-300, 1e300, random.logUniform(1e-3, 1e9)])];
        case 3: return ['bool', random.chance(0.5)];
        case 4: return ['string', random.pick(['', 'gpt-4o', 'claude-3.5 ✓', 'é'.repeat(random.int(0, 200))])];
        default: return ['bytes', Uint8Array.from({ length: random.int(0, 300) }, () => random.int(0, 255))];
      }
    });

  it('writes the bytes protobufjs writes, and reads them back, for 20 runs of 200 random primitives', () => {
    for (let run = 0; run < 20; run++) {
      const sequence = ops();
      const ours = new ByteWriter();
      const reference = protobuf.Writer.create();
      for (const [op, value] of sequence) {
        (ours[op] as (v: unknown) => ByteWriter)(value);
        (reference[op] as (v: unknown) => protobuf.Writer)(value);
      }
      const bytes = ours.finish();
      expect(Buffer.from(bytes).equals(Buffer.from(reference.finish()))).toBe(true);
      const reader = new ByteReader(bytes);
      for (const [op, value] of sequence) {
        const read = (reader[op] as () => unknown)();
        if (value instanceof Uint8Array) expect(Buffer.from(read as Uint8Array).equals(Buffer.from(value))).toBe(true);
        else expect(Object.is(read, value), `${op} ${String(value)}`).toBe(true);
      }
      expect(reader.pos).toBe(reader.len);
    }
  });

  it('refuses values out of range when writing and truncated input when reading', () => {
    expect(() => new ByteWriter().uint32(-1)).toThrow(RangeError);
    expect(() => new ByteWriter().uint32(2 ** 32)).toThrow(RangeError);
    expect(() => new ByteWriter().uint32(1.5)).toThrow(RangeError);
    expect(() => new ByteWriter().sint32(2 ** 31)).toThrow(RangeError);
    const bytes = new ByteWriter().uint32(300).double(1).string('model').finish();
    for (let cut = 0; cut < bytes.length; cut++) {
      const reader = new ByteReader(bytes.subarray(0, cut));
      expect(() => [reader.uint32(), reader.double(), reader.string()]).toThrow(RangeError);
    }
    expect(() => new ByteReader(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01])).uint32()).toThrow(RangeError);
  });
});
