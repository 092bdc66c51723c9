import { useLocation, useSearchParams } from 'react-router';
import type { Schemas } from '../api/client';
import { withChanges } from './TimeRangePicker';
import { formatNumber } from './ui';

/** A list's pagination; search and exports answer no total, then only the page is said. */
type Pagination = Pick<Schemas['Pagination'], 'limit' | 'nextCursor'> & Partial<Pick<Schemas['Pagination'], 'total' | 'totalExact'>>;

/**
 * The cursors of the pages before this one, oldest first ('' is the first page), kept in the history
 * entry: the API gives only the next page's cursor, so "Previous" goes back along the cursors that led
 * here. A link to a deeper page reproduces that page (its cursor is in the URL); it then offers the
 * first page instead of the previous one.
 */
function earlierPages(state: unknown): string[] {
  const pages = (state as { pages?: unknown } | null)?.pages;
  return Array.isArray(pages) && pages.every((p) => typeof p === 'string') ? pages : [];
}

/** The total as the API counted it: exact, or a lower bound when `totalExact` is false. */
export const describeTotal = (pagination: Pick<Schemas['Pagination'], 'total' | 'totalExact'>, noun: string) =>
  `${pagination.totalExact ? '' : 'at least '}${formatNumber(pagination.total)} ${noun}`;

/** The page sizes a list offers (`limit=` in the URL). */
const PAGE_SIZES = ['10', '25', '50', '100'];
const DEFAULT_PAGE_SIZE = '50';

/** The page size the URL asks for, or the default; the API's schema judges it. */
export const pageSize = (search: URLSearchParams) => search.get('limit') ?? DEFAULT_PAGE_SIZE;

/**
 * Previous/next by `pagination.nextCursor`, the cursor held in the URL (`cursor=`), and the page size
 * when `sizes` is given. `pin` is set in the URL with the next page's cursor: what keeps the next
 * page's filters those of this page (a cursor answers only the query that returned it), such as the
 * end of a preset time range.
 */
export function CursorPager({
  pagination,
  noun,
  pin = {},
  sizes = false,
}: {
  pagination: Pagination;
  noun: string;
  pin?: Record<string, string>;
  sizes?: boolean;
}) {
  const [search, setSearch] = useSearchParams();
  const { state } = useLocation();
  const earlier = earlierPages(state);
  const cursor = search.get('cursor');
  const known = !cursor || earlier.length > 0;
  const go = (to: string | null, pages: string[], changes: Record<string, string> = {}) =>
    setSearch(withChanges(search, { ...changes, cursor: to ?? undefined }, true), { state: { pages } });
  const previous = () => (earlier.length > 0 ? go(earlier.at(-1) || null, earlier.slice(0, -1)) : go(null, []));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={!cursor} onClick={previous}>
        {known ? 'Previous' : 'First page'}
      </button>
      <span className="muted" data-testid="page-position">
        {known ? `Page ${earlier.length + 1}` : 'A later page'}
        {pagination.total === undefined ? '' : ` · ${describeTotal({ total: pagination.total, totalExact: pagination.totalExact ?? false }, noun)}`}
      </span>
      <button type="button" disabled={!pagination.nextCursor} onClick={() => go(pagination.nextCursor, [...earlier, cursor ?? ''], pin)}>
        Next
      </button>
      {sizes ? (
        <label className="check">
          Per page
          <select
            value={String(pagination.limit)}
            onChange={(e) => setSearch(withChanges(search, { limit: e.target.value === DEFAULT_PAGE_SIZE ? undefined : e.target.value }))}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </nav>
  );
}
