/**
 * UTC time buckets. Every bucket is a whole number of minutes aligned on the Unix epoch, so bucket
 * starts are plain arithmetic on epoch milliseconds and daylight saving never enters into it.
 */
export const GRANULARITIES = ['minute', 'hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const BUCKET_MS: Readonly<Record<Granularity, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** One stored rollup bucket. */
export interface BucketRef {
  granularity: Granularity;
  startMs: number;
}

/**
 * A part [fromMs, toMs) of a stored hour or day bucket: whole minutes of the hour, whole hours of the
 * day, counted from the bucket's slot counts (see `RollupsRepository.counts`).
 */
export interface BucketSlice {
  granularity: 'hour' | 'day';
  startMs: number;
  fromMs: number;
  toMs: number;
}

/** What a count reads: whole buckets and parts of buckets. */
export type CountRef = BucketRef | BucketSlice;

export const isSlice = (ref: CountRef): ref is BucketSlice => 'fromMs' in ref;

/** The granularity of the slots an hour or day bucket counts its traces by. */
export const SLOT_GRANULARITY = { hour: 'minute', day: 'hour' } as const;

/** Whole UTC days [fromMs, toMs). */
export interface DayWindow {
  fromMs: number;
  toMs: number;
}

/**
 * The whole past days of a plan's retention: the `retentionDays - 1` UTC days before today (with
 * today, the retention's calendar days). What a scope's settled item sums (see `RollupsRepository.settled`).
 */
export function settledWindow(nowMs: number, retentionDays: number): DayWindow {
  const toMs = bucketStart(nowMs, 'day');
  return { fromMs: toMs - Math.max(0, retentionDays - 1) * BUCKET_MS.day, toMs };
}

/** Names a bucket among others, e.g. in the answer of `RollupsRepository.read`. */
export const bucketRefKey = (r: BucketRef): string => `${r.granularity}#${new Date(r.startMs).toISOString()}`;

export const isGranularity = (value: string): value is Granularity => (GRANULARITIES as readonly string[]).includes(value);

export const bucketStart = (ms: number, granularity: Granularity): number => Math.floor(ms / BUCKET_MS[granularity]) * BUCKET_MS[granularity];

const bucketCeil = (ms: number, granularity: Granularity): number => Math.ceil(ms / BUCKET_MS[granularity]) * BUCKET_MS[granularity];

/**
 * Automatic series granularity, keeping a series to a few hundred points: up to 6 hours by minute
 * (≤ 361 points), up to 14 days by hour (≤ 337), longer by day (≤ 367 for the longest allowed range).
 */
export function chooseGranularity(startMs: number, endMs: number): Granularity {
  const span = endMs - startMs;
  if (span <= 6 * BUCKET_MS.hour) return 'minute';
  if (span <= 14 * BUCKET_MS.day) return 'hour';
  return 'day';
}

/** How many buckets of this granularity meet the half-open range [startMs, endMs). */
export function seriesLength(startMs: number, endMs: number, granularity: Granularity): number {
  if (endMs <= startMs) return 0;
  return Math.ceil((endMs - bucketStart(startMs, granularity)) / BUCKET_MS[granularity]);
}

/** The starts of the buckets that meet [startMs, endMs), in order: the points of a zero-filled series. */
export function bucketsBetween(startMs: number, endMs: number, granularity: Granularity): number[] {
  const first = bucketStart(startMs, granularity);
  return Array.from({ length: seriesLength(startMs, endMs, granularity) }, (_, i) => first + i * BUCKET_MS[granularity]);
}

const COARSEST_FIRST = ['day', 'hour'] as const;

/**
 * The fewest stored buckets that exactly cover [startMs, endMs) widened to whole minutes: whole UTC
 * days as day buckets, the whole hours either side as hour buckets, the ragged ends as minute
 * buckets, in time order. A 30-day range takes about 30 + 2·23 + 2·59 buckets instead of 43,200.
 */
export function coveringBuckets(startMs: number, endMs: number): BucketRef[] {
  if (endMs <= startMs) return [];
  const end = bucketCeil(endMs, 'minute');
  const buckets: BucketRef[] = [];
  for (let cursor = bucketStart(startMs, 'minute'); cursor < end; ) {
    const granularity = COARSEST_FIRST.find((g) => bucketStart(cursor, g) === cursor && cursor + BUCKET_MS[g] <= end) ?? 'minute';
    buckets.push({ granularity, startMs: cursor });
    cursor += BUCKET_MS[granularity];
  }
  return buckets;
}

/**
 * For each point of a series over [startMs, endMs), the stored buckets that cover that point's part
 * of the range. Edge points are clipped to the range, so the points add up to the range's total; the
 * union of all the parts is what a series query reads.
 */
export function seriesPlan(startMs: number, endMs: number, granularity: Granularity): Array<{ startMs: number; parts: BucketRef[] }> {
  return bucketsBetween(startMs, endMs, granularity).map((pointStart) => ({
    startMs: pointStart,
    parts: coveringBuckets(Math.max(pointStart, startMs), Math.min(pointStart + BUCKET_MS[granularity], endMs)),
  }));
}
