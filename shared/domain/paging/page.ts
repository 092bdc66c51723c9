/** Which page of a list a request asks for: `limit` items after skipping `skip`, from the start or after a cursor's position. */
export interface PageInput {
  limit: number;
  skip: number;
  /** The position (in the list's key order) the page starts after; from a cursor. */
  after?: string;
}

/**
 * One page of a list and where it sits in the whole: `total` is exact when `totalExact` (from counters
 * or a count that read to the end), else what a bounded count found (a lower bound). `next` is the
 * position the next page starts after, present while `hasMore`.
 */
export interface ListPage<T> {
  items: T[];
  total: number;
  totalExact: boolean;
  hasMore: boolean;
  next?: string;
}

/** One page as a repository reads it, in the list's key order. */
export interface ReadPage<T> {
  items: T[];
  hasMore: boolean;
  /** The position the next page starts after (the last item's sort key, or where a filtered read stopped). */
  next?: string;
  /** When the read was asked to count: the matches from the start of the read, exact when it read to the end. */
  counted?: Total;
}

export type Order = 'newest-first' | 'oldest-first';

export const mapPage = <T, U>(page: ListPage<T>, view: (item: T) => U): ListPage<U> => ({ ...page, items: page.items.map(view) });

/** A list's total: exact, or a lower bound when the count stopped at its budget. */
export interface Total {
  count: number;
  exact: boolean;
}

/**
 * Pages past this many skipped items are refused: `skip` reads every item it skips, so deep pages
 * use the cursor, which reads only the page.
 */
export const MAX_SKIP = 10_000;
