/**
 * The part of DDSketch (Masson, Rim and Lee, VLDB 2019) the latency sketches use: values ≥ 0 mapped
 * to integer keys by a logarithm of base γ = (1 + α)/(1 − α), so that every key's value is within a
 * relative accuracy α of all the values it holds, and the count of each key in a dense array.
 *
 * The keys are those of @datadog/sketches-js's LogarithmicMapping, computed with the same floating-point
 * operations, so the sketches stored before read the same (a test holds the two equal). That package
 * also bundles its protobuf serialisation, about 55 KB that these sketches never use.
 */

/** Values at or below γ·2^-1023 cannot be told from 0: they count as zeros. */
const MIN_SAFE_FLOAT = 2 ** -1023;

export class LogarithmicMapping {
  readonly gamma: number;
  /** The smallest value with a key of its own. */
  readonly minPossible: number;
  /** The keys a finite value can have: a key outside them comes from a corrupt encoding. */
  readonly keyRange: readonly [number, number];
  private readonly multiplier: number;

  constructor(relativeAccuracy: number) {
    if (!(relativeAccuracy > 0 && relativeAccuracy < 1)) throw new RangeError('the relative accuracy must be between 0 and 1');
    const gammaMantissa = (2 * relativeAccuracy) / (1 - relativeAccuracy);
    this.gamma = 1 + gammaMantissa;
    this.multiplier = (1 / Math.log1p(gammaMantissa)) * Math.log(2);
    this.minPossible = MIN_SAFE_FLOAT * this.gamma;
    this.keyRange = [this.key(this.minPossible), this.key(Number.MAX_VALUE)];
  }

  key(value: number): number {
    // + 0: a value just under 1 rounds up to -0, which is key 0.
    return Math.ceil(Math.log2(value) * this.multiplier) + 0;
  }

  /** The value a key stands for: within the relative accuracy of every value mapped to it. */
  value(key: number): number {
    return Math.pow(2, key / this.multiplier) * (2 / (1 + this.gamma));
  }
}

/** Keys a growing array takes beyond the one asked for, so that keys arriving in order do not copy it each time. */
const GROWTH_SLACK = 64;

/** Counts by key over [minKey, maxKey], in an array that grows to cover the keys added. */
export class DenseBins {
  minKey = Infinity;
  maxKey = -Infinity;
  count = 0;
  private bins: number[] = [];
  /** The key of bins[0]. */
  private offset = 0;

  add(key: number, count: number): void {
    this.cover(key, key);
    this.bins[key - this.offset]! += count;
    this.count += count;
  }

  /** Makes room for [minKey, maxKey] at once: sizing for all the keys to come copies the array once. */
  cover(minKey: number, maxKey: number): void {
    if (minKey > maxKey) return;
    const low = Math.min(minKey, this.minKey);
    const high = Math.max(maxKey, this.maxKey);
    const end = this.offset + this.bins.length; // one past the last key the array holds
    if (this.bins.length === 0) this.resize(low, high);
    else if (low < this.offset || high >= end) {
      this.resize(low < this.offset ? low - GROWTH_SLACK : this.offset, high >= end ? high + GROWTH_SLACK : end - 1);
    }
    this.minKey = low;
    this.maxKey = high;
  }

  private resize(firstKey: number, lastKey: number): void {
    const bins = new Array<number>(lastKey - firstKey + 1).fill(0);
    for (let i = 0; i < this.bins.length; i++) bins[i + this.offset - firstKey] = this.bins[i]!;
    this.bins = bins;
    this.offset = firstKey;
  }

  countOf(key: number): number {
    return key < this.minKey || key > this.maxKey ? 0 : this.bins[key - this.offset]!;
  }

  /** The key holding the value of 0-based rank `rank` (the highest key past the last rank). */
  keyAtRank(rank: number): number {
    let running = 0;
    for (let key = this.minKey; key <= this.maxKey; key++) {
      running += this.bins[key - this.offset]!;
      if (running > rank) return key;
    }
    return this.maxKey;
  }
}

/** Non-negative values: zeros counted apart, the others by key. */
export class DDSketch {
  readonly mapping: LogarithmicMapping;
  readonly store = new DenseBins();
  zeroCount = 0;
  count = 0;

  constructor(relativeAccuracy: number) {
    this.mapping = new LogarithmicMapping(relativeAccuracy);
  }

  accept(value: number, count = 1): void {
    if (!(value >= 0)) throw new RangeError(`a sketch takes values ≥ 0, got ${value}`);
    if (!(count > 0)) throw new RangeError(`a value is added a positive number of times, got ${count}`);
    if (value > this.mapping.minPossible) this.store.add(this.mapping.key(value), count);
    else this.zeroCount += count;
    this.count += count;
  }
}
