import { DDSketch } from '@datadog/sketches-js';
import { ByteReader, ByteWriter } from '../binary.ts';

/** Every quantile the sketch answers is within 1% of the exact value at that rank. */
const RELATIVE_ACCURACY = 0.01;

/**
 * First byte of every serialised sketch, so a future format can be told apart. Format 1 is the one the
 * rollups have always stored (whichever DDSketch core filled it): the keys are those of sketches-js's
 * logarithmic mapping at 1%, so stored sketches read back unchanged.
 */
const FORMAT_VERSION = 1;

const newSketch = () => new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
/** The keys a finite value can have: a key outside them comes from a corrupt encoding. */
const KEY_RANGE = ((mapping) => [mapping.key(mapping.minPossible), mapping.key(Number.MAX_VALUE)] as const)(newSketch().mapping);

/** The non-empty bins in key order. */
function forEachBin({ store }: DDSketch, visit: (key: number, count: number) => void): void {
  for (let key = store.minKey; key <= store.maxKey; key++) {
    const count = store.bins[key - store.offset] ?? 0;
    if (count > 0) visit(key, count);
  }
}

/**
 * Sizes the store for [minKey, maxKey] by adding nothing at both ends: growing it one key at a time
 * re-centres its array over and over, which makes merging several times slower.
 */
function reserve({ store }: DDSketch, minKey: number, maxKey: number): void {
  if (minKey > maxKey) return;
  store.add(maxKey, 0);
  store.add(minKey, 0);
}

function addZeros(sketch: DDSketch, count: number): void {
  if (count > 0) sketch.accept(0, count);
}

/** Straight into the store: no log/pow round trip. The sketch's sum, min and max go unused (rollups keep exact ones). */
function addBin(sketch: DDSketch, key: number, count: number): void {
  sketch.store.add(key, count);
  sketch.count += count;
}

/** Visits the non-empty bins of an encoding (see serialize) in key order; answers its zero count. */
function readBins(encoded: Uint8Array, visit: (key: number, count: number) => void): number {
  const reader = new ByteReader(encoded);
  reader.uint32();
  const zeroCount = reader.uint32();
  for (let key = 0; reader.pos < reader.len; ) {
    key += reader.sint32();
    // Sizing a store for a key no value can have would take gigabytes.
    if (key < KEY_RANGE[0] || key > KEY_RANGE[1]) throw new RangeError(`corrupt latency sketch: key ${key}`);
    visit(key, reader.uint32());
  }
  return zeroCount;
}

type Source = { sketch: DDSketch } | { encoded: Uint8Array } | { parts: readonly LatencySketch[] };

/**
 * A mergeable latency distribution (milliseconds, ≥ 0) over a DDSketch (@datadog/sketches-js) with 1%
 * relative accuracy. Immutable, and built only when a quantile, the count or the encoding is asked
 * for: most analytics answers merge and decode rollups without ever reading their latencies, and a
 * merge reads the bins of encoded parts straight from their bytes.
 *
 * Merging replays the parts' bins into a fresh sketch sized for all of them rather than using
 * `DDSketch.merge`, which in sketches-js 2.1 loses the range of a store whose highest key is 0 (values
 * of exactly 1 ms); and the encoding (see serialize) lists only the non-empty bins, so that equal
 * distributions encode alike, where sketches-js's `toProto` writes every padded bin as a double at an
 * offset that depends on the order values arrived in.
 */
export class LatencySketch {
  private built: DDSketch | undefined;

  private constructor(private readonly source: Source) {
    if ('sketch' in source) this.built = source.sketch;
  }

  private get sketch(): DDSketch {
    return (this.built ??= LatencySketch.fill('encoded' in this.source ? [this] : 'parts' in this.source ? this.source.parts : []));
  }

  /** A fresh sketch of the parts' bins, sized for all of them first. */
  private static fill(parts: readonly LatencySketch[]): DDSketch {
    const sketch = newSketch();
    let minKey = Infinity;
    let maxKey = -Infinity;
    for (const part of parts) {
      part.visitBins((key) => {
        minKey = Math.min(minKey, key);
        maxKey = Math.max(maxKey, key);
      });
    }
    reserve(sketch, minKey, maxKey);
    for (const part of parts)
      addZeros(
        sketch,
        part.visitBins((key, count) => addBin(sketch, key, count)),
      );
    return sketch;
  }

  /** Visits the non-empty bins in key order, from the encoding when the sketch is not built; answers the zero count. */
  private visitBins(visit: (key: number, count: number) => void): number {
    if (!this.built && 'encoded' in this.source) return readBins(this.source.encoded, visit);
    forEachBin(this.sketch, visit);
    return this.sketch.zeroCount;
  }

  static of(valuesMs: Iterable<number>): LatencySketch {
    const sketch = newSketch();
    for (const value of valuesMs) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`a latency must be a finite number ≥ 0, got ${value}`);
      sketch.accept(value);
    }
    return new LatencySketch({ sketch });
  }

  static empty(): LatencySketch {
    return LatencySketch.of([]);
  }

  static merge(sketches: Iterable<LatencySketch>): LatencySketch {
    return new LatencySketch({ parts: [...sketches] });
  }

  /** Checks the format at once; reads the bins when first needed. */
  static deserialize(encoded: Uint8Array): LatencySketch {
    const version = new ByteReader(encoded).uint32();
    if (version !== FORMAT_VERSION) throw new Error(`unknown latency sketch format ${version}`);
    return new LatencySketch({ encoded });
  }

  get count(): number {
    return this.sketch.count;
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
   * Varints: the format version, the zero count, then each non-empty bin in key order as (key minus
   * the previous key, count). Equal distributions give equal bytes, whatever the order values were
   * added or merged in. Bin counts are whole numbers below 2^32.
   */
  serialize(): Uint8Array {
    const writer = new ByteWriter().uint32(FORMAT_VERSION).uint32(this.sketch.zeroCount);
    let previousKey = 0;
    forEachBin(this.sketch, (key, count) => {
      writer.sint32(key - previousKey).uint32(count);
      previousKey = key;
    });
    return writer.finish();
  }
}
