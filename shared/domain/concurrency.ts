import pLimit from 'p-limit';

/**
 * Calls a worker batch makes per trace (or per session) in flight at once: enough to keep the table
 * busy, few enough that the calls of other work sharing the client's connections (50 by default; in
 * the local runtime the API's requests) do not wait behind hundreds of them.
 */
export const PER_TRACE_CALLS_AT_ONCE = 16;

/** `fn` of every item, at most `limit` running at once; the results in the items' order. */
export function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  return pLimit(limit).map(items, (item) => fn(item));
}
