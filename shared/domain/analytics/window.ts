import { ValidationError } from '../errors.ts';
import { BUCKET_MS, chooseGranularity, GRANULARITIES, type Granularity, isGranularity, seriesLength } from './buckets.ts';

const DEFAULT_RANGE_DAYS = 7;
const MAX_RANGE_DAYS = 366;
/** An explicit interval may not ask for a longer series than this (a day by minute is 1,440). */
const MAX_SERIES_POINTS = 1500;

/** The half-open range [startMs, endMs) an analytics query covers, and its series granularity. */
export interface AnalyticsWindow {
  startMs: number;
  endMs: number;
  granularity: Granularity;
}

export interface AnalyticsQuery {
  startDate?: Date;
  endDate?: Date;
  interval?: string;
}

/**
 * Where a range of `days` days that ends at `endMs` starts: an end on a minute's last millisecond (a
 * day given alone as `endDate`, which means the end of that day) is followed by the next minute, and the
 * days count back from there, so `endDate=2026-11-29` alone covers 23 to 29 November whole.
 */
export function daysBefore(endMs: number, days: number): number {
  const after = (endMs + 1) % BUCKET_MS.minute === 0 ? endMs + 1 : endMs;
  return after - days * BUCKET_MS.day;
}

/**
 * The range a query asks for: by default the 7 days up to now (or up to endDate); dates in the future
 * count as now. Refuses an end before the start (naming endDate) and a range over 366 days (naming startDate).
 */
export function resolveRange({ startDate, endDate }: Pick<AnalyticsQuery, 'startDate' | 'endDate'>, now: Date): { startMs: number; endMs: number } {
  if (startDate && endDate && endDate < startDate) throw new ValidationError('endDate: must not be before startDate');
  const nowMs = now.getTime();
  const endMs = Math.min(endDate?.getTime() ?? nowMs, nowMs);
  const startMs = Math.min(startDate?.getTime() ?? daysBefore(endMs, DEFAULT_RANGE_DAYS), nowMs);
  if (endMs - startMs > MAX_RANGE_DAYS * BUCKET_MS.day) {
    throw new ValidationError(`startDate: the range must not be longer than ${MAX_RANGE_DAYS} days`);
  }
  return { startMs, endMs };
}

/** The explicit `interval` when valid for the range, else the automatic granularity. */
export function resolveGranularity(interval: string | undefined, startMs: number, endMs: number): Granularity {
  if (interval === undefined) return chooseGranularity(startMs, endMs);
  if (!isGranularity(interval)) throw new ValidationError(`interval: must be one of ${GRANULARITIES.join(', ')}`);
  const points = seriesLength(startMs, endMs, interval);
  if (points > MAX_SERIES_POINTS) {
    throw new ValidationError(`interval: ${interval} buckets would make ${points} points over this range, more than ${MAX_SERIES_POINTS}`);
  }
  return interval;
}

/** Everything an analytics handler needs from `startDate`, `endDate` and `interval`. */
export function analyticsWindow(query: AnalyticsQuery, now: Date): AnalyticsWindow {
  const { startMs, endMs } = resolveRange(query, now);
  return { startMs, endMs, granularity: resolveGranularity(query.interval, startMs, endMs) };
}
