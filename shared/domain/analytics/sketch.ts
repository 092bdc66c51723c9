import { DDSketch } from '@datadog/sketches-js';
import protobuf from 'protobufjs/minimal.js';

/** Every quantile the sketch answers is within 1% of the exact value at that rank. */
const RELATIVE_ACCURACY = 0.01;

/** First byte of every serialised sketch, so a future format can be told apart. */
const FORMAT_VERSION = 1;

/**
 * A mergeable latency distribution (milliseconds, ≥ 0) over a DDSketch with 1% relative accuracy.
 *
 * Merging and deserialising replay bins into a fresh sketch rather than using `DDSketch.merge`,
 * which in sketches-js 2.1 ignores the negative store and loses the range of a store whose highest
 * key is 0 (values of exactly 1 ms), and `toProto`, which writes every padded bin as a double at an
 * insertion-order-dependent offset.
 */
export class LatencySketch {
  private readonly sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });

  private constructor() {}

  static empty(): LatencySketch {
    return new LatencySketch();
  }

  static merge(sketches: Iterable<LatencySketch>): LatencySketch {
    const parts = [...sketches];
    const merged = new LatencySketch();
    merged.reserve(
      parts.reduce((min, part) => Math.min(min, part.sketch.store.minKey), Infinity),
      parts.reduce((max, part) => Math.max(max, part.sketch.store.maxKey), -Infinity),
    );
    for (const part of parts) {
      merged.addZeros(part.sketch.zeroCount);
      part.forEachBin((key, count) => merged.addBin(key, count));
    }
    return merged;
  }

  static deserialize(encoded: string): LatencySketch {
    const reader = protobuf.Reader.create(Buffer.from(encoded, 'base64'));
    const version = reader.uint32();
    if (version !== FORMAT_VERSION) throw new Error(`unknown latency sketch format ${version}`);
    const sketch = new LatencySketch();
    sketch.addZeros(reader.uint32());
    const bins: Array<[key: number, count: number]> = [];
    for (let key = 0; reader.pos < reader.len; ) {
      key += reader.sint32();
      bins.push([key, reader.uint32()]);
    }
    sketch.reserve(bins[0]?.[0] ?? Infinity, bins.at(-1)?.[0] ?? -Infinity);
    for (const [key, count] of bins) sketch.addBin(key, count);
    return sketch;
  }

  get count(): number {
    return this.sketch.count;
  }

  add(valueMs: number): void {
    if (!Number.isFinite(valueMs) || valueMs < 0) throw new RangeError(`a latency must be a finite number ≥ 0, got ${valueMs}`);
    this.sketch.accept(valueMs);
  }

  /** The value at quantile q (0–1) by the nearest-rank method, as `quantile` in spans/views.ts; null when empty. */
  quantile(q: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.count));
    const { zeroCount, store, mapping } = this.sketch;
    if (rank <= zeroCount) return 0;
    return mapping.value(store.keyAtRank(rank - zeroCount - 1));
  }

  /**
   * Base64 of varints: the format version, the zero count, then each non-empty bin in key order as
   * (key minus the previous key, count). Equal distributions give equal strings, whatever the order
   * values were added or merged in. Bin counts are whole numbers below 2^32.
   */
  serialize(): string {
    const writer = protobuf.Writer.create().uint32(FORMAT_VERSION).uint32(this.sketch.zeroCount);
    let previousKey = 0;
    this.forEachBin((key, count) => {
      writer.sint32(key - previousKey).uint32(count);
      previousKey = key;
    });
    return Buffer.from(writer.finish()).toString('base64');
  }

  /** The non-empty bins in key order. */
  private forEachBin(visit: (key: number, count: number) => void): void {
    const { store } = this.sketch;
    for (let key = store.minKey; key <= store.maxKey; key++) {
      const count = store.bins[key - store.offset]!;
      if (count > 0) visit(key, count);
    }
  }

  /**
   * Sizes the store for [minKey, maxKey] by adding nothing at both ends: growing it one key at a time
   * re-centres its array over and over, which makes merging several times slower.
   */
  private reserve(minKey: number, maxKey: number): void {
    if (minKey > maxKey) return;
    this.sketch.store.add(maxKey, 0);
    this.sketch.store.add(minKey, 0);
  }

  private addZeros(count: number): void {
    if (count > 0) this.sketch.accept(0, count);
  }

  /** Straight into the store: no log/pow round trip. The inner sketch's sum, min and max go unused (rollups keep exact ones). */
  private addBin(key: number, count: number): void {
    this.sketch.store.add(key, count);
    this.sketch.count += count;
  }
}
