import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { CursorPager } from '../components/CursorPager';
import { isRangeKey } from '../components/range';
import { listQueryFromSearch, pinnedRange, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { UserText } from '../components/UserText';
import { Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatPercent, formatTime, Loading, PageTitle } from '../components/ui';

export default function Agents() {
  const [search, setSearch] = useSearchParams();
  // Metrics over the range picked (the API's startDate/endDate); "All time" is the plan's retention.
  const query = listQueryFromSearch(search, ['cursor'], '50');
  const agents = useQuery({
    queryKey: ['agents', query],
    queryFn: async () => unwrap(await api.GET('/agents', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));
  // An agent's page opens on the list's preset range (it has no "All time": its charts need a range).
  const presetRange = isRangeKey(search.get('range')) ? search.get('range') : null;
  return (
    <>
      <PageTitle title="Agents" />
      <CreateAgent />
      <form className="filters" aria-label="Agent metrics range" onSubmit={(e) => e.preventDefault()}>
        <TimeRangePicker search={search} onChange={change} />
      </form>
      <ErrorMessage error={agents.error} />
      {agents.isLoading ? <Loading /> : null}
      {agents.data?.data.length === 0 ? <Empty>No agents yet: they appear with their first trace, or create one above.</Empty> : null}
      {agents.data?.data.length ? (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Requests</th>
                <th scope="col">Success rate</th>
                <th scope="col">Error rate</th>
                <th scope="col">Avg latency</th>
                <th scope="col">p95 latency</th>
                <th scope="col">Tokens</th>
                <th scope="col">Est. cost</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link to={`/agents/${encodeURIComponent(a.id)}${presetRange ? `?range=${presetRange}` : ''}`}>
                      <UserText text={a.name} />
                    </Link>
                    {a.description ? <div className="muted small">{a.description}</div> : null}
                  </td>
                  <td>{formatNumber(a.metrics.requestCount)}</td>
                  <td>{formatPercent(a.metrics.successRate)}</td>
                  <td>{formatPercent(a.metrics.errorRate)}</td>
                  <td>{formatDuration(a.metrics.avgLatencyMs)}</td>
                  <td>{formatDuration(a.metrics.p95LatencyMs)}</td>
                  <td>{formatNumber(a.metrics.totalTokens)}</td>
                  <td>{formatCost(a.metrics.estimatedCost)}</td>
                  <td className="nowrap">{formatTime(a.lastSeenAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <CursorPager pagination={agents.data.pagination} noun="agents" pin={pinnedRange(search, query)} />
        </>
      ) : null}
    </>
  );
}

function CreateAgent() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/agents', { body: { name, description } })).data,
    onSuccess: (agent) => {
      void queryClient.invalidateQueries({ queryKey: ['agents'] });
      void navigate(`/agents/${encodeURIComponent(agent.id)}`);
    },
  });
  if (!open) {
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          New agent
        </button>
      </p>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="form inline-form" onSubmit={submit} aria-label="New agent">
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create
      </button>
      <button type="button" className="link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorMessage error={create.error} />
    </form>
  );
}
