import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { rangeFromSearch, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { Badge, Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle, Pager, statusTone } from '../components/ui';

type TraceQuery = NonNullable<paths['/spans/traces']['get']['parameters']['query']>;

/** The text filters of `GET /spans/traces` besides the ones with choices; typed by the API's own query. */
const TEXT_FILTERS = [{ name: 'sessionId', label: 'Session id' }] as const satisfies ReadonlyArray<{ name: keyof TraceQuery; label: string }>;

const PAGE_SIZE = '50';

/** The query the URL describes: everything the list endpoint takes, so a link reproduces the view. */
function traceQuery(search: URLSearchParams): TraceQuery {
  const query: Record<string, string> = { limit: PAGE_SIZE, ...rangeFromSearch(search) };
  for (const name of ['agentId', 'status', 'model', 'skip', ...TEXT_FILTERS.map((f) => f.name)] as const) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  return query as TraceQuery;
}

export default function Traces() {
  const [search, setSearch] = useSearchParams();
  const query = traceQuery(search);
  const filters = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, staleTime: 60_000 });
  const traces = useQuery({
    queryKey: ['traces', query],
    queryFn: async () => unwrap(await api.GET('/spans/traces', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));

  return (
    <>
      <PageTitle title="Traces" />
      <form className="filters" aria-label="Trace filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Agent
          <select value={search.get('agentId') ?? ''} onChange={(e) => change({ agentId: e.target.value })}>
            <option value="">All agents</option>
            {filters.data?.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={search.get('status') ?? ''} onChange={(e) => change({ status: e.target.value })}>
            <option value="">Any status</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
        </label>
        <label>
          Model
          <select value={search.get('model') ?? ''} onChange={(e) => change({ model: e.target.value })}>
            <option value="">Any model</option>
            {filters.data?.models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {TEXT_FILTERS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input type="search" defaultValue={search.get(f.name) ?? ''} onBlur={(e) => change({ [f.name]: e.target.value.trim() })} onKeyDown={(e) => e.key === 'Enter' && change({ [f.name]: e.currentTarget.value.trim() })} />
          </label>
        ))}
        <TimeRangePicker search={search} onChange={change} />
        {search.size > 0 ? (
          <button type="button" className="link" onClick={() => setSearch(new URLSearchParams())}>
            Clear filters
          </button>
        ) : null}
      </form>
      <ErrorMessage error={filters.error ?? traces.error} />
      {traces.isLoading ? <Loading /> : null}
      {traces.data ? (
        traces.data.data.length === 0 ? (
          <Empty>No trace matches these filters.</Empty>
        ) : (
          <>
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
                </tr>
              </thead>
              <tbody>
                {traces.data.data.map((t) => (
                  <tr key={t.traceId}>
                    <td className="nowrap">{formatTime(t.startTime)}</td>
                    <td>
                      <Link to={`/traces/${encodeURIComponent(t.traceId)}`}>{t.name}</Link>
                      <div className="muted mono small">{t.traceId}</div>
                    </td>
                    <td>{t.agentId ? <Link to={`/agents/${encodeURIComponent(t.agentId)}`}>{t.agentName}</Link> : '—'}</td>
                    <td>
                      <Badge tone={statusTone(t.status)}>{t.status}</Badge>
                    </td>
                    <td>{formatDuration(t.durationMs)}</td>
                    <td>{formatNumber(t.spanCount)}</td>
                    <td>{formatNumber(t.totalTokens)}</td>
                    <td>{formatCost(t.cost)}</td>
                    <td>{t.model ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager pagination={traces.data.pagination} onSkip={(skip) => setSearch(withChanges(search, { skip: skip ? String(skip) : undefined }, true))} />
          </>
        )
      ) : null}
    </>
  );
}
