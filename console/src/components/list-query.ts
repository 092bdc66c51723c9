import { isRangeKey, rangeDates } from './range.ts';

/*
 * What a list page asks the API for, from its URL alone. Plain functions without React: the boot
 * script builds a landing page's first request with them too (first-request.ts).
 */

/**
 * The time range a list page holds in its URL: a preset (`range=24h`) or explicit `from`/`to`. A
 * preset ends now, or at `at` once a page has been turned (see `pinnedRange`).
 */
export function rangeFromSearch(search: URLSearchParams): { startDate?: string; endDate?: string } {
  const range = search.get('range');
  const at = Date.parse(search.get('at') ?? '');
  if (isRangeKey(range)) return rangeDates(range, Number.isNaN(at) ? Date.now() : at);
  const from = search.get('from');
  const to = search.get('to');
  return { ...(from ? { startDate: new Date(from).toISOString() } : {}), ...(to ? { endDate: new Date(to).toISOString() } : {}) };
}

/** The page size a list's URL asks for (`limit=`), or the default; the API's schema judges it. */
export const DEFAULT_PAGE_SIZE = '50';
export const pageSize = (search: URLSearchParams) => search.get('limit') ?? DEFAULT_PAGE_SIZE;

/**
 * The query of a list the URL describes: its page size, its time range and the named parameters it
 * holds (filters and the cursor), so that a link reproduces the view.
 */
export function listQueryFromSearch(search: URLSearchParams, names: readonly string[], limit: string): Record<string, string> {
  const query: Record<string, string> = { limit, ...rangeFromSearch(search) };
  for (const name of names) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  return query;
}
