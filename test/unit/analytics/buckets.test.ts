import { describe, expect, it } from 'vitest';
import {
  BUCKET_MS,
  type BucketRef,
  bucketStart,
  bucketsBetween,
  chooseGranularity,
  coveringBuckets,
  GRANULARITIES,
  seriesLength,
  seriesPlan,
} from '#shared/domain/analytics/buckets.ts';
import { seededRandom } from './fixtures.ts';

const at = (iso: string) => Date.parse(iso);
const MINUTE = BUCKET_MS.minute;
const DAY = BUCKET_MS.day;

const endOf = (b: BucketRef) => b.startMs + BUCKET_MS[b.granularity];

/** The minutes a set of buckets covers, one entry per minute per bucket (so overlaps show as duplicates). */
const minutesOf = (buckets: readonly BucketRef[]) =>
  buckets.flatMap((b) => Array.from({ length: BUCKET_MS[b.granularity] / MINUTE }, (_, i) => b.startMs + i * MINUTE));

/** The minutes that [startMs, endMs) touches. */
const minutesTouched = (startMs: number, endMs: number) => bucketsBetween(startMs, endMs, 'minute');

const randomRanges = (seed: number, count: number, maxLengthMs: number) => {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const startMs = at('2024-01-01T00:00:00Z') + Math.floor(random.next() * 400 * DAY);
    const lengthMs = random.pick([0, 1, 59_999, 60_000, 3_600_000, DAY]) + (random.chance(0.8) ? Math.floor(random.next() * maxLengthMs) : 0);
    return { startMs, endMs: startMs + lengthMs };
  });
};

describe('bucketStart', () => {
  it('floors to the UTC minute, hour and day', () => {
    const t = at('2024-03-10T23:59:59.999Z');
    expect(new Date(bucketStart(t, 'minute')).toISOString()).toBe('2024-03-10T23:59:00.000Z');
    expect(new Date(bucketStart(t, 'hour')).toISOString()).toBe('2024-03-10T23:00:00.000Z');
    expect(new Date(bucketStart(t, 'day')).toISOString()).toBe('2024-03-10T00:00:00.000Z');
    expect(bucketStart(at('2024-03-11T00:00:00Z'), 'day')).toBe(at('2024-03-11T00:00:00Z'));
  });

  it('ignores daylight saving: days around the EU and US clock changes have 24 hour buckets', () => {
    for (const day of ['2024-03-31', '2024-10-27', '2024-03-10', '2024-11-03']) {
      const start = at(`${day}T00:00:00Z`);
      expect(bucketsBetween(start, start + DAY, 'hour')).toHaveLength(24);
      expect(bucketStart(start + DAY - 1, 'day')).toBe(start);
    }
  });
});

describe('series buckets', () => {
  it('gives one bucket for a range shorter than a minute, two when it crosses a minute boundary', () => {
    expect(bucketsBetween(at('2024-01-01T12:00:10Z'), at('2024-01-01T12:00:40Z'), 'minute')).toEqual([at('2024-01-01T12:00:00Z')]);
    expect(bucketsBetween(at('2024-01-01T12:00:50Z'), at('2024-01-01T12:01:10Z'), 'minute')).toEqual([at('2024-01-01T12:00:00Z'), at('2024-01-01T12:01:00Z')]);
  });

  it('gives no buckets for an empty range, and treats the end as exclusive', () => {
    expect(bucketsBetween(at('2024-01-01T12:00:00Z'), at('2024-01-01T12:00:00Z'), 'minute')).toEqual([]);
    expect(bucketsBetween(at('2024-01-01T00:00:00Z'), at('2024-01-03T00:00:00Z'), 'day')).toHaveLength(2);
  });

  it('counts points without listing them', () => {
    for (const { startMs, endMs } of randomRanges(3, 200, 20 * DAY)) {
      for (const g of GRANULARITIES) expect(seriesLength(startMs, endMs, g)).toBe(bucketsBetween(startMs, endMs, g).length);
    }
  });

  it('chooses minute up to 6 h, hour up to 14 d, day beyond', () => {
    const start = at('2024-01-01T00:00:00Z');
    expect(chooseGranularity(start, start + 6 * 3_600_000)).toBe('minute');
    expect(chooseGranularity(start, start + 6 * 3_600_000 + 1)).toBe('hour');
    expect(chooseGranularity(start, start + 14 * DAY)).toBe('hour');
    expect(chooseGranularity(start, start + 14 * DAY + 1)).toBe('day');
  });

  it('keeps automatic series to a few hundred points for any range up to 366 days', () => {
    for (const { startMs, endMs } of randomRanges(4, 500, 366 * DAY)) {
      expect(seriesLength(startMs, endMs, chooseGranularity(startMs, endMs))).toBeLessThanOrEqual(367);
    }
  });
});

describe('coveringBuckets', () => {
  it('reads whole days, whole hours, then minutes for a 30-day range with ragged ends', () => {
    const buckets = coveringBuckets(at('2024-01-01T10:17:30Z'), at('2024-01-31T15:42:10Z'));
    const count = (g: string) => buckets.filter((b) => b.granularity === g).length;
    expect({ day: count('day'), hour: count('hour'), minute: count('minute') }).toEqual({ day: 29, hour: 13 + 15, minute: 43 + 43 });
    expect(buckets[0]).toEqual({ granularity: 'minute', startMs: at('2024-01-01T10:17:00Z') });
    expect(buckets.at(-1)).toEqual({ granularity: 'minute', startMs: at('2024-01-31T15:42:00Z') });
  });

  it('is one day bucket for a whole UTC day and one minute bucket for a few seconds', () => {
    expect(coveringBuckets(at('2024-02-29T00:00:00Z'), at('2024-03-01T00:00:00Z'))).toEqual([{ granularity: 'day', startMs: at('2024-02-29T00:00:00Z') }]);
    expect(coveringBuckets(at('2024-02-29T08:30:05Z'), at('2024-02-29T08:30:06Z'))).toEqual([{ granularity: 'minute', startMs: at('2024-02-29T08:30:00Z') }]);
    expect(coveringBuckets(at('2024-02-29T08:30:05Z'), at('2024-02-29T08:30:05Z'))).toEqual([]);
  });

  it('covers exactly the minutes the range touches, with no gap or overlap (seeded random ranges)', () => {
    for (const { startMs, endMs } of randomRanges(5, 300, 3 * DAY)) {
      expect(minutesOf(coveringBuckets(startMs, endMs))).toEqual(minutesTouched(startMs, endMs));
    }
  });

  it('tiles long ranges end to end with aligned buckets, and never uses small buckets where a larger one fits', () => {
    const coarser = { minute: 'hour', hour: 'day' } as const;
    for (const { startMs, endMs } of randomRanges(6, 300, 40 * DAY)) {
      const buckets = coveringBuckets(startMs, endMs);
      if (endMs === startMs) {
        expect(buckets).toEqual([]);
        continue;
      }
      const [from, to] = [bucketStart(startMs, 'minute'), Math.ceil(endMs / MINUTE) * MINUTE];
      expect(buckets.reduce((cursor, b) => (b.startMs === cursor ? endOf(b) : Number.NaN), from)).toBe(to);
      for (const b of buckets) {
        expect(bucketStart(b.startMs, b.granularity)).toBe(b.startMs);
        if (b.granularity === 'day') continue;
        const parent = bucketStart(b.startMs, coarser[b.granularity]);
        expect(parent >= from && parent + BUCKET_MS[coarser[b.granularity]] <= to).toBe(false);
      }
    }
  });
});

describe('seriesPlan', () => {
  it("splits the covering buckets by series point, each point's parts inside the point", () => {
    for (const { startMs, endMs } of randomRanges(7, 60, 2 * DAY)) {
      for (const g of GRANULARITIES) {
        const plan = seriesPlan(startMs, endMs, g);
        expect(plan.map((p) => p.startMs)).toEqual(bucketsBetween(startMs, endMs, g));
        expect(minutesOf(plan.flatMap((p) => p.parts))).toEqual(minutesTouched(startMs, endMs));
        for (const { startMs: point, parts } of plan) {
          for (const part of parts) expect(part.startMs >= point && endOf(part) <= point + BUCKET_MS[g]).toBe(true);
        }
      }
    }
  });
});
