import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '#shared/domain/binary.ts';
import { seededRandom } from '../../support/random.ts';

// protobufjs is the reference the rollups' binary encoding (protobuf's wire primitives, no field tags) is held to.
const random = seededRandom(2019);

describe('binary encoding', () => {
  type Op = ['uint32' | 'sint32' | 'double' | 'bool' | 'string' | 'bytes', unknown];
  const ops = (): Op[] =>
    Array.from({ length: 200 }, (): Op => {
      switch (random.below(6)) {
        case 0:
          return ['uint32', random.pick([0, 1, 127, 128, 16_383, 16_384, 2 ** 31, 2 ** 32 - 1, random.int(0, 2 ** 32 - 1)])];
        case 1:
          return ['sint32', random.pick([0, -1, 1, -64, 64, -(2 ** 31), 2 ** 31 - 1, random.int(-(2 ** 31), 2 ** 31 - 1)])];
        case 2:
          return ['double', random.pick([0, -0, 1.5, Math.PI, 1e-300, 1e300, random.logUniform(1e-3, 1e9)])];
        case 3:
          return ['bool', random.chance(0.5)];
        case 4:
          return ['string', random.pick(['', 'gpt-4o', 'claude-3.5 ✓', 'é'.repeat(random.int(0, 200))])];
        default:
          return ['bytes', Uint8Array.from({ length: random.int(0, 300) }, () => random.int(0, 255))];
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
