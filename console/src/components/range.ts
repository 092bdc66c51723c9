/** The time ranges the pages offer, each with the bucket size its charts use. */
export const RANGES = {
  '1h': { label: 'Last hour', ms: 3_600_000, interval: 'minute' },
  '24h': { label: 'Last 24 hours', ms: 86_400_000, interval: 'hour' },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, interval: 'day' },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000, interval: 'day' },
} as const;
export type RangeKey = keyof typeof RANGES;

export const isRangeKey = (value: string | null): value is RangeKey => value !== null && value in RANGES;

/** A range ending now, as the API's `startDate`/`endDate`; the start rounded to the minute so a page's queries agree. */
export function rangeDates(key: RangeKey, now = Date.now()): { startDate: string; endDate: string } {
  const end = Math.ceil(now / 60_000) * 60_000;
  return { startDate: new Date(end - RANGES[key].ms).toISOString(), endDate: new Date(end).toISOString() };
}
