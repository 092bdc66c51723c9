import type { paths } from '../api/schema.d.ts';
import { listQueryFromSearch, pageSize } from '../components/list-query.ts';

/*
 * The traces explorer's list as its URL describes it, without React: the boot script sends the same
 * request on a page load before the console's code has run (first-request.ts).
 */

export const TRACE_LIST = '/spans/traces';

export type TraceQuery = NonNullable<paths[typeof TRACE_LIST]['get']['parameters']['query']>;
type FilterName = Exclude<keyof TraceQuery, 'limit' | 'skip' | 'cursor' | 'startDate' | 'endDate'>;

/** The typed filters of `GET /spans/traces`; `suggest` names the `GET /spans/filters` list offered while typing. */
export const TYPED_FILTERS = [
  { name: 'toolName', label: 'Tool', suggest: 'toolNames' },
  { name: 'errorType', label: 'Error type', suggest: 'errorTypes' },
  { name: 'name', label: 'Trace name', suggest: 'traceNames' },
  { name: 'tag', label: 'Tag', suggest: 'tags' },
  { name: 'metadata', label: 'Metadata (key=value)' },
  { name: 'userId', label: 'User id' },
  { name: 'sessionId', label: 'Session id' },
  { name: 'minDurationMs', label: 'Min duration (ms)', inputMode: 'numeric' },
  { name: 'maxDurationMs', label: 'Max duration (ms)', inputMode: 'numeric' },
  { name: 'minCost', label: 'Min cost ($)', inputMode: 'decimal' },
  { name: 'minTokens', label: 'Min tokens', inputMode: 'numeric' },
] as const satisfies ReadonlyArray<{
  name: FilterName;
  label: string;
  suggest?: 'toolNames' | 'errorTypes' | 'traceNames' | 'tags';
  inputMode?: 'numeric' | 'decimal';
}>;

export const FILTERS: readonly FilterName[] = ['agentId', 'status', 'model', 'hasAlert', ...TYPED_FILTERS.map((f) => f.name)];

/** The query of the list a URL asks for (its filters, time range, page size and cursor). */
export const traceQueryOf = (search: URLSearchParams) => listQueryFromSearch(search, [...FILTERS, 'cursor'], pageSize(search)) as TraceQuery;
