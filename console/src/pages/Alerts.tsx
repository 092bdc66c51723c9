import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { LLM_ALERT_TYPES, SEVERITIES, THRESHOLD_ALERT_TYPES } from '#shared/domain/alerts/config.ts';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { AgentLink } from '../components/AgentLink';
import { AlertActions } from '../components/alert-actions';
import { CursorPager } from '../components/CursorPager';
import { pinnedRange, rangeFromSearch, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, Empty, ErrorMessage, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

type AlertQuery = NonNullable<paths['/spans/alerts']['get']['parameters']['query']>;
const FILTERS = ['status', 'type', 'severity', 'agentId', 'cursor'] as const satisfies ReadonlyArray<keyof AlertQuery>;

export default function Alerts() {
  const [search, setSearch] = useSearchParams();
  const query: Record<string, string> = { limit: '50', ...rangeFromSearch(search) };
  for (const name of FILTERS) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  // The inbox opens on what needs attention; `status=all` shows every status.
  if (!search.has('status')) query['status'] = 'open';
  if (query['status'] === 'all') delete query['status'];
  const alerts = useQuery({
    queryKey: ['alerts', query],
    queryFn: async () => unwrap(await api.GET('/spans/alerts', { params: { query: query as AlertQuery } })),
    placeholderData: keepPreviousData,
  });
  const filters = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, staleTime: 60_000 });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));
  const status = search.get('status') ?? 'open';
  return (
    <>
      <PageTitle title="Alerts" />
      <form className="filters" aria-label="Alert filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => change({ status: e.target.value === 'open' ? undefined : e.target.value || 'all' })}>
            <option value="open">Open</option>
            <option value="acknowledged">Acknowledged</option>
            <option value="resolved">Resolved</option>
            <option value="all">Any status</option>
          </select>
        </label>
        <label>
          Type
          <select value={search.get('type') ?? ''} onChange={(e) => change({ type: e.target.value })}>
            <option value="">Any type</option>
            {[...THRESHOLD_ALERT_TYPES, ...LLM_ALERT_TYPES].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select value={search.get('severity') ?? ''} onChange={(e) => change({ severity: e.target.value })}>
            <option value="">Any severity</option>
            {SEVERITIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={search.get('agentId') ?? ''} onChange={(e) => change({ agentId: e.target.value })}>
            <option value="">All agents</option>
            {filters.data?.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {showBidiControls(a.name)}
              </option>
            ))}
          </select>
        </label>
        <TimeRangePicker search={search} onChange={change} />
      </form>
      <ErrorMessage error={alerts.error} />
      {alerts.isLoading ? <Loading /> : null}
      {alerts.data?.data.length === 0 ? <Empty>No alerts here. All quiet.</Empty> : null}
      {alerts.data?.data.length ? (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">Alert</th>
                <th scope="col">Agent</th>
                <th scope="col">Occurrences</th>
                <th scope="col">Last seen</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {alerts.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Badge tone={statusTone(a.severity)}>{a.severity}</Badge>
                  </td>
                  <td>
                    <Link to={`/alerts/${encodeURIComponent(a.id)}`}>
                      <UserText text={a.message} />
                    </Link>
                    <div className="muted small">{a.type}</div>
                  </td>
                  <td>
                    <AgentLink agentId={a.agentId} name={a.agentName} />
                  </td>
                  <td>{formatNumber(a.occurrenceCount)}</td>
                  <td className="nowrap">{formatTime(a.lastSeenAt)}</td>
                  <td>
                    <Badge tone={statusTone(a.status)}>{a.status}</Badge>
                  </td>
                  <td>
                    <AlertActions alert={a} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <CursorPager pagination={alerts.data.pagination} noun="alerts" pin={pinnedRange(search, query)} />
        </>
      ) : null}
    </>
  );
}
