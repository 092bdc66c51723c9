import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { sessionListQuery } from '#shared/schemas/routes/sessions.ts';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { AgentLink } from '../components/AgentLink';
import { CursorPager, pageSize } from '../components/CursorPager';
import { AgentFilter, TextFilter } from '../components/filters';
import { OpenById } from '../components/OpenById';
import { queryProblems } from '../components/query-problems';
import { listQueryFromSearch, pinnedRange, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { UserText } from '../components/UserText';
import { Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle } from '../components/ui';

type SessionQuery = NonNullable<paths['/sessions']['get']['parameters']['query']>;

/** Conversations: the sessions most recently started first, with their figures. */
export default function Sessions() {
  const [search, setSearch] = useSearchParams();
  const query = listQueryFromSearch(search, ['agentId', 'userId', 'cursor'], pageSize(search)) as SessionQuery;
  const problems = queryProblems(sessionListQuery, query);
  const filters = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, staleTime: 60_000 });
  const sessions = useQuery({
    queryKey: ['sessions', query],
    queryFn: async () => unwrap(await api.GET('/sessions', { params: { query } })),
    placeholderData: keepPreviousData,
    enabled: problems.size === 0,
  });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));
  const unplaced = [...problems].filter(([field]) => field !== 'agentId' && field !== 'userId').map(([, problem]) => problem);

  return (
    <>
      <PageTitle title="Sessions" />
      <form className="filters" aria-label="Session filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter
          agents={filters.data?.agents}
          value={search.get('agentId') ?? ''}
          problem={problems.get('agentId')}
          onChange={(v) => change({ agentId: v })}
        />
        <TextFilter name="userId" label="User id" value={search.get('userId') ?? ''} problem={problems.get('userId')} onCommit={(v) => change({ userId: v })} />
        <TimeRangePicker search={search} onChange={change} />
        {search.size > 0 ? (
          <button type="button" className="link" onClick={() => setSearch(new URLSearchParams())}>
            Clear filters
          </button>
        ) : null}
      </form>
      <OpenById label="Session id" formLabel="Open a session" path="/sessions" />
      {unplaced.length > 0 ? (
        <p className="error" role="alert">
          {unplaced.join('; ')}
        </p>
      ) : null}
      <ErrorMessage error={filters.error ?? sessions.error} />
      {problems.size > 0 ? <Empty>Correct the filters above to see sessions.</Empty> : sessions.isLoading ? <Loading /> : null}
      {sessions.data && problems.size === 0 ? (
        <>
          {sessions.data.data.length === 0 ? (
            <Empty>No session matches these filters. A session is the traces that name one sessionId (OpenTelemetry: gen_ai.conversation.id).</Empty>
          ) : (
            <table className="sessions" aria-busy={sessions.isPlaceholderData}>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Agent</th>
                  <th scope="col">User</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Traces</th>
                  <th scope="col">Errors</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {sessions.data.data.map((s) => (
                  <tr key={s.sessionId}>
                    <td>
                      <Link to={`/sessions/${encodeURIComponent(s.sessionId)}`} className="mono">
                        <UserText text={s.sessionId} />
                      </Link>
                    </td>
                    <td>
                      <AgentLink agentId={s.agentId} name={s.agentName} />
                    </td>
                    <td className="text">{s.userId ? <UserText text={s.userId} /> : '—'}</td>
                    <td className="nowrap">{formatTime(s.firstSeenAt)}</td>
                    <td className="nowrap">{formatTime(s.lastSeenAt)}</td>
                    <td>{formatNumber(s.traceCount)}</td>
                    <td>{formatNumber(s.errorCount)}</td>
                    <td>{formatNumber(s.totalTokens)}</td>
                    <td>{formatCost(s.cost)}</td>
                    <td>{formatDuration(s.durationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <CursorPager pagination={sessions.data.pagination} noun="sessions" pin={pinnedRange(search, query)} sizes />
        </>
      ) : null}
    </>
  );
}
