import { keepPreviousData, type QueryClient, queryOptions, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { traceListQuery } from '#shared/schemas/routes/spans.ts';
import { takeBootRequest } from '../api/boot-request';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { CursorPager, pageSize } from '../components/CursorPager';
import { AgentFilter, ChoiceFilter, TextFilter } from '../components/filters';
import { OpenById } from '../components/OpenById';
import { queryProblems } from '../components/query-problems';
import { listQueryFromSearch, pinnedRange, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { TraceState, TraceStatusBadge } from '../components/TraceState';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle } from '../components/ui';
import { API_BASE_URL } from '../page-table';

type TraceQuery = NonNullable<paths['/spans/traces']['get']['parameters']['query']>;
type TraceList = paths['/spans/traces']['get']['responses'][200]['content']['application/json'];
type FilterName = Exclude<keyof TraceQuery, 'limit' | 'skip' | 'cursor' | 'startDate' | 'endDate'>;

/** The typed filters of `GET /spans/traces`; `suggest` names the `GET /spans/filters` list offered while typing. */
const TYPED_FILTERS = [
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

const STATUSES = ['ok', 'error'] as const satisfies ReadonlyArray<NonNullable<TraceQuery['status']>>;

const FILTERS: readonly FilterName[] = ['agentId', 'status', 'model', 'hasAlert', ...TYPED_FILTERS.map((f) => f.name)];

/** The list a URL asks for: its query, what the API's schema finds wrong with it (then it is not sent), and its request. */
function traceList(search: URLSearchParams) {
  const query = listQueryFromSearch(search, [...FILTERS, 'cursor'], pageSize(search)) as TraceQuery;
  const request = queryOptions({
    queryKey: ['traces', query],
    queryFn: async () => {
      // Sent as the page loaded when it opened without a query (page-table.ts's firstRequest); an answer that is not a success is asked for again here.
      const sent = await takeBootRequest(`${API_BASE_URL}/spans/traces?${new URLSearchParams(query)}`);
      if (sent?.ok) return (await sent.json()) as TraceList;
      return unwrap(await api.GET('/spans/traces', { params: { query } }));
    },
  });
  return { query, problems: queryProblems(traceListQuery, query), request };
}

/** The page's list, asked for as soon as the sign-in and this module are there (routes.tsx), while the page draws. */
export function prefetch(queryClient: QueryClient, search: URLSearchParams) {
  const { problems, request } = traceList(search);
  if (problems.size === 0) void queryClient.prefetchQuery(request);
}

export default function Traces() {
  const [search, setSearch] = useSearchParams();
  const { query, problems, request } = traceList(search);
  const traces = useQuery({ ...request, placeholderData: keepPreviousData, enabled: problems.size === 0 });
  // The values the filters offer are asked for once the list has answered: the list is what the page
  // is for, and locally one process answers both.
  const filters = useQuery({
    queryKey: ['filters'],
    queryFn: async () => unwrap(await api.GET('/spans/filters')).data,
    staleTime: 60_000,
    enabled: traces.fetchStatus === 'idle',
  });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));
  const value = (name: string) => search.get(name) ?? '';
  const unplaced = [...problems].filter(([field]) => !(FILTERS as readonly string[]).includes(field)).map(([, problem]) => problem);

  return (
    <>
      <PageTitle title="Traces" />
      <form className="filters" aria-label="Trace filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter agents={filters.data?.agents} value={value('agentId')} problem={problems.get('agentId')} onChange={(v) => change({ agentId: v })} />
        <ChoiceFilter
          name="status"
          label="Status"
          any="Any status"
          value={value('status')}
          choices={STATUSES.map((s) => ({ value: s, label: s }))}
          problem={problems.get('status')}
          onChange={(v) => change({ status: v })}
        />
        <ChoiceFilter
          name="model"
          label="Model"
          any="Any model"
          value={value('model')}
          choices={filters.data?.models.map((m) => ({ value: m, label: m })) ?? []}
          problem={problems.get('model')}
          onChange={(v) => change({ model: v })}
        />
        <ChoiceFilter
          name="hasAlert"
          label="Alerts"
          any="With or without"
          value={value('hasAlert')}
          choices={[
            { value: 'true', label: 'Raised an alert' },
            { value: 'false', label: 'Raised none' },
          ]}
          problem={problems.get('hasAlert')}
          onChange={(v) => change({ hasAlert: v })}
        />
        {TYPED_FILTERS.map((f) => (
          <TextFilter
            key={f.name}
            name={f.name}
            label={f.label}
            value={value(f.name)}
            problem={problems.get(f.name)}
            suggestions={'suggest' in f ? filters.data?.[f.suggest] : undefined}
            {...('inputMode' in f ? { inputMode: f.inputMode } : {})}
            onCommit={(v) => change({ [f.name]: v })}
          />
        ))}
        <TimeRangePicker search={search} onChange={change} />
        {search.size > 0 ? (
          <button type="button" className="link" onClick={() => setSearch(new URLSearchParams())}>
            Clear filters
          </button>
        ) : null}
      </form>
      <OpenById label="Trace id" formLabel="Go to a trace" path="/traces" />
      {unplaced.length > 0 ? (
        <p className="error" role="alert">
          {unplaced.join('; ')}
        </p>
      ) : null}
      <ErrorMessage error={filters.error ?? traces.error} />
      {problems.size > 0 ? <Empty>Correct the filters above to see traces.</Empty> : traces.isLoading ? <Loading /> : null}
      {traces.data && problems.size === 0 ? (
        <>
          {traces.data.data.length === 0 ? (
            <Empty>
              {traces.data.pagination.nextCursor ? 'No trace on this stretch of the list; the next page reads on.' : 'No trace matches these filters.'}
            </Empty>
          ) : (
            <table className="traces" aria-busy={traces.isPlaceholderData}>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Name</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Spans</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
                  <th scope="col">Model</th>
                  <th scope="col">Session</th>
                </tr>
              </thead>
              <tbody>
                {traces.data.data.map((t) => (
                  <tr key={t.traceId}>
                    <td className="nowrap">{formatTime(t.startTime)}</td>
                    <td>
                      <Link to={`/traces/${encodeURIComponent(t.traceId)}`}>
                        <UserText text={t.name} />
                      </Link>
                      <div className="muted mono small">
                        <UserText text={t.traceId} />
                      </div>
                      {t.tags.length > 0 ? (
                        <div className="small">
                          {t.tags.map((tag) => (
                            <Badge key={tag} tone="info">
                              <UserText text={tag} />
                            </Badge>
                          ))}
                        </div>
                      ) : null}
                    </td>
                    <td>
                      {t.agentId ? (
                        <Link className="truncate" to={`/agents/${encodeURIComponent(t.agentId)}`} title={showBidiControls(t.agentName ?? t.agentId)}>
                          <UserText text={t.agentName ?? t.agentId} />
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className="status">
                      <TraceStatusBadge trace={t} />
                      <TraceState trace={t} />
                      {t.errorTypes.length > 0 ? (
                        <div className="muted small">
                          <UserText text={t.errorTypes.join(', ')} />
                        </div>
                      ) : null}
                      {t.alertTypes.length > 0 ? <div className="small">alert: {t.alertTypes.join(', ')}</div> : null}
                    </td>
                    <td className="nowrap">{formatDuration(t.durationMs)}</td>
                    <td className="nowrap">{formatNumber(t.spanCount)}</td>
                    <td className="nowrap">{formatNumber(t.totalTokens)}</td>
                    <td className="nowrap">{formatCost(t.cost)}</td>
                    <td className="text">{t.model ? <UserText text={t.model} /> : '—'}</td>
                    <td>
                      {t.sessionId ? (
                        <Link
                          className="truncate"
                          to={`/sessions/${encodeURIComponent(t.sessionId)}`}
                          title={showBidiControls(t.sessionId)}
                          aria-label={`Session ${showBidiControls(t.sessionId)}`}
                        >
                          <UserText text={t.sessionId} />
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <CursorPager pagination={traces.data.pagination} noun="traces" pin={pinnedRange(search, query)} sizes />
        </>
      ) : null}
    </>
  );
}
