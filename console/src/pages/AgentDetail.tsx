import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, type Schemas, unwrap } from '../api/client';
import { AlertConfigEditor } from '../components/AlertConfigEditor';
import { TimeChart } from '../components/Chart';
import { isRangeKey, RANGES, type RangeKey, rangeDates } from '../components/range';
import { RangeSelect, withChanges } from '../components/TimeRangePicker';
import { TraceState, TraceStatusBadge } from '../components/TraceState';
import { showBidiControls, UserText } from '../components/UserText';
import {
  Badge,
  Empty,
  ErrorMessage,
  formatCost,
  formatDuration,
  formatNumber,
  formatPercent,
  formatTime,
  Loading,
  PageTitle,
  statusTone,
} from '../components/ui';

export default function AgentDetail() {
  const { agentId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const range: RangeKey = isRangeKey(search.get('range')) ? (search.get('range') as RangeKey) : '24h';
  // One range for the figures and the charts; a new range keeps the page (and the editor's draft) while it loads.
  const dates = useMemo(() => rangeDates(range), [range]);
  const agent = useQuery({
    queryKey: ['agent', agentId, dates],
    queryFn: async () => unwrap(await api.GET('/agents/{agentId}', { params: { path: { agentId }, query: dates } })).data,
    placeholderData: (previous) => (previous?.id === agentId ? previous : undefined),
  });
  if (agent.isLoading) return <Loading />;
  if (!agent.data) return <ErrorMessage error={agent.error} />;
  const a = agent.data;
  return (
    <>
      <PageTitle title={showBidiControls(a.name)}>
        <Link to={`/traces?agentId=${encodeURIComponent(a.id)}`}>All traces</Link>
        <Link to={`/alerts?agentId=${encodeURIComponent(a.id)}`}>All alerts</Link>
      </PageTitle>
      {a.description ? <p>{a.description}</p> : null}
      <form className="filters" aria-label="Agent metrics range" onSubmit={(e) => e.preventDefault()}>
        <RangeSelect value={range} onChange={(r) => setSearch(withChanges(search, { range: r }), { replace: true })} />
      </form>
      <dl className="cards" aria-label={`Metrics, ${RANGES[range].label.toLowerCase()}`}>
        <div className="card">
          <dt>Requests</dt>
          <dd>{formatNumber(a.metrics.requestCount)}</dd>
        </div>
        <div className="card">
          <dt>Success rate</dt>
          <dd>{formatPercent(a.metrics.successRate)}</dd>
        </div>
        <div className="card">
          <dt>Avg latency</dt>
          <dd>{formatDuration(a.metrics.avgLatencyMs)}</dd>
        </div>
        <div className="card">
          <dt>p95 latency</dt>
          <dd>{formatDuration(a.metrics.p95LatencyMs)}</dd>
        </div>
        <div className="card">
          <dt>Tokens</dt>
          <dd>{formatNumber(a.metrics.totalTokens)}</dd>
        </div>
        <div className="card">
          <dt>Est. cost</dt>
          <dd>{formatCost(a.metrics.estimatedCost)}</dd>
        </div>
      </dl>
      <AgentCharts agentId={a.id} range={range} dates={dates} />
      <div className="two-columns">
        <RecentTraces agentId={a.id} />
        <RecentAlerts agentId={a.id} />
      </div>
      <Profile agent={a} />
      {/* Keyed by agent, not by updatedAt: its own save refreshes the agent, and a re-mount would drop the editor's "Saved." */}
      <AlertConfigEditor key={a.id} agentId={a.id} config={a.alertConfig} />
      <DeleteAgent agent={a} />
    </>
  );
}

function AgentCharts({ agentId, range, dates }: { agentId: string; range: RangeKey; dates: { startDate: string; endDate: string } }) {
  const query = useMemo(() => ({ ...dates, interval: RANGES[range].interval, agentId }), [agentId, range, dates]);
  const over = RANGES[range].label.toLowerCase();
  const requests = useQuery({
    queryKey: ['analytics', 'requests', query],
    queryFn: async () => unwrap(await api.GET('/analytics/traces/requests-over-time', { params: { query } })).data,
  });
  const latency = useQuery({
    queryKey: ['analytics', 'latency', query],
    queryFn: async () => unwrap(await api.GET('/analytics/traces/latency-percentiles', { params: { query } })).data,
  });
  return (
    <div className="charts">
      <ErrorMessage error={requests.error ?? latency.error} />
      {requests.data ? (
        <TimeChart
          title={`Requests, ${over}`}
          timestamps={requests.data.series.map((p) => p.timestamp)}
          series={[{ label: 'Requests', color: '#2563eb', values: requests.data.series.map((p) => p.requestCount) }]}
          format={formatNumber}
        />
      ) : null}
      {latency.data ? (
        <TimeChart
          title={`Latency, ${over}`}
          timestamps={latency.data.series.map((p) => p.timestamp)}
          series={[
            { label: 'p50', color: '#16a34a', values: latency.data.series.map((p) => p.p50Ms) },
            { label: 'p95', color: '#d97706', values: latency.data.series.map((p) => p.p95Ms) },
          ]}
          format={formatDuration}
        />
      ) : null}
    </div>
  );
}

function RecentTraces({ agentId }: { agentId: string }) {
  const traces = useQuery({
    queryKey: ['traces', { agentId, limit: '10' }],
    queryFn: async () => unwrap(await api.GET('/spans/traces', { params: { query: { agentId, limit: '10' } } })).data,
  });
  return (
    <section aria-labelledby="recent-traces">
      <h2 id="recent-traces">Recent traces</h2>
      <ErrorMessage error={traces.error} />
      {traces.data?.length === 0 ? <Empty>No traces yet.</Empty> : null}
      <ul className="plain">
        {traces.data?.map((t) => (
          <li key={t.traceId}>
            <TraceStatusBadge trace={t} />{' '}
            <Link to={`/traces/${encodeURIComponent(t.traceId)}`}>
              <UserText text={t.name} />
            </Link>{' '}
            <span className="muted small">
              {formatTime(t.startTime)} · {formatDuration(t.durationMs)}
            </span>
            <TraceState trace={t} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function RecentAlerts({ agentId }: { agentId: string }) {
  const alerts = useQuery({
    queryKey: ['alerts', { agentId, limit: '10' }],
    queryFn: async () => unwrap(await api.GET('/spans/alerts', { params: { query: { agentId, limit: '10' } } })).data,
  });
  return (
    <section aria-labelledby="recent-alerts">
      <h2 id="recent-alerts">Alerts</h2>
      <ErrorMessage error={alerts.error} />
      {alerts.data?.length === 0 ? <Empty>No alerts.</Empty> : null}
      <ul className="plain">
        {alerts.data?.map((a) => (
          <li key={a.id}>
            <Badge tone={statusTone(a.severity)}>{a.severity}</Badge>{' '}
            <Link to={`/alerts/${encodeURIComponent(a.id)}`}>
              <UserText text={a.message} />
            </Link>{' '}
            <Badge tone={statusTone(a.status)}>{a.status}</Badge>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Profile({ agent }: { agent: Schemas['Agent'] }) {
  const queryClient = useQueryClient();
  const profile = useQuery({
    queryKey: ['profile', agent.id],
    queryFn: async () => unwrap(await api.GET('/agents/{agentId}/agent-profile', { params: { path: { agentId: agent.id } } })).data,
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['profile', agent.id] });
    void queryClient.invalidateQueries({ queryKey: ['agent', agent.id] });
  };
  const learning = useMutation({
    mutationFn: async (learningEnabled: boolean) =>
      unwrap(await api.PUT('/agents/{agentId}', { params: { path: { agentId: agent.id } }, body: { profileSettings: { learningEnabled } } })),
    onSuccess: refresh,
  });
  const regenerate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/agents/{agentId}/agent-profile/regenerate', { params: { path: { agentId: agent.id } } })),
    onSuccess: refresh,
  });
  const reset = useMutation({
    mutationFn: async () => unwrap(await api.POST('/agents/{agentId}/agent-profile/reset-training', { params: { path: { agentId: agent.id } } })),
    onSuccess: refresh,
  });
  const view = profile.data;
  return (
    <section aria-labelledby="profile-title" className="profile">
      <h2 id="profile-title">Behavioural profile</h2>
      <ErrorMessage error={profile.error ?? learning.error ?? regenerate.error ?? reset.error} />
      <div className="actions">
        <label className="check">
          <input
            type="checkbox"
            checked={agent.profileSettings.learningEnabled}
            disabled={learning.isPending}
            onChange={(e) => learning.mutate(e.target.checked)}
          />
          Learning on
        </label>
        <button type="button" onClick={() => regenerate.mutate()} disabled={regenerate.isPending}>
          Regenerate
        </button>
        <button
          type="button"
          onClick={() => window.confirm('Reset training? The learned profile and its anchors are cleared.') && reset.mutate()}
          disabled={reset.isPending}
        >
          Reset training
        </button>
      </div>
      {view ? (
        <>
          <p>
            Phase <Badge tone="info">{view.phase}</Badge> · last learned {formatTime(view.lastLearnedAt)} · next {formatTime(view.nextLearningAt)}
          </p>
          {view.profile ? (
            <>
              <p>
                <strong>{view.profile.identity.useCase}</strong> ({view.profile.identity.maturityLevel}): {view.profile.identity.behaviouralSummary}
              </p>
              <h3>Insights</h3>
              <ul>
                {view.profile.insights.map((insight, i) => (
                  <li key={i}>{insight}</li>
                ))}
              </ul>
              <h3>Tool patterns</h3>
              {view.profile.toolPatterns.distribution.length ? (
                <table className="compact">
                  <thead>
                    <tr>
                      <th scope="col">Tool</th>
                      <th scope="col">Calls</th>
                      <th scope="col">Share</th>
                      <th scope="col">In traces</th>
                      <th scope="col">Error rate</th>
                    </tr>
                  </thead>
                  <tbody>
                    {view.profile.toolPatterns.distribution.map((t) => (
                      <tr key={t.tool}>
                        <td className="text">{t.tool}</td>
                        <td>{formatNumber(t.calls)}</td>
                        <td>{formatPercent(t.callShare)}</td>
                        <td>{formatPercent(t.traceRate)}</td>
                        <td>{formatPercent(t.errorRate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <Empty>No tool calls seen.</Empty>
              )}
              {view.profile.toolPatterns.commonSequences.length ? (
                <ul>
                  {view.profile.toolPatterns.commonSequences.map((s, i) => (
                    <li key={i}>
                      {s.tools.join(' → ')} <span className="muted">({formatPercent(s.traceRate)} of traces)</span>
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : (
            <Empty>No profile yet: it is learned once the agent has sent enough traces.</Empty>
          )}
          <h3>Anchors</h3>
          {view.anchors.length ? (
            <table className="compact">
              <thead>
                <tr>
                  <th scope="col">Anchor</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last value</th>
                  <th scope="col">Bounds</th>
                </tr>
              </thead>
              <tbody>
                {view.anchors.map((anchor) => (
                  <tr key={anchor.id}>
                    <td className="text">{anchor.description}</td>
                    <td>
                      <Badge tone={statusTone(anchor.status)}>{anchor.status}</Badge>
                    </td>
                    <td>{anchor.lastValue === null ? '—' : anchor.lastValue.toLocaleString('en-US', { maximumFractionDigits: 4 })}</td>
                    <td>
                      {anchor.min ?? '−∞'} … {anchor.max ?? '∞'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <Empty>No anchors yet.</Empty>
          )}
        </>
      ) : null}
    </section>
  );
}

function DeleteAgent({ agent }: { agent: Schemas['Agent'] }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/agents/{agentId}', { params: { path: { agentId: agent.id } } })),
    onSuccess: () => {
      // Gone from the cache too: Back would show it from there as if it still existed.
      queryClient.removeQueries({ queryKey: ['agent', agent.id] });
      queryClient.removeQueries({ queryKey: ['profile', agent.id] });
      void queryClient.invalidateQueries({ queryKey: ['agents'] });
      void navigate('/agents');
    },
  });
  return (
    <section className="danger" aria-labelledby="delete-agent">
      <h2 id="delete-agent">Delete agent</h2>
      {confirming ? (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            remove.mutate();
          }}
        >
          <label>
            Type the agent's name, <strong>{agent.name}</strong>, to delete it with all its traces, alerts and profile
            <input value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>
          <ErrorMessage error={remove.error} />
          <div className="actions">
            <button type="submit" className="danger" disabled={typed !== agent.name || remove.isPending}>
              Delete for good
            </button>
            <button type="button" className="link" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete this agent…
        </button>
      )}
    </section>
  );
}
