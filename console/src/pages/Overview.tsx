import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { AgentLink } from '../components/AgentLink';
import { TimeChart } from '../components/Chart';
import { FirstRun } from '../components/FirstRun';
import { isRangeKey, RANGES, type RangeKey, rangeDates } from '../components/range';
import { RangeSelect } from '../components/TimeRangePicker';
import { ErrorMessage, formatCost, formatDuration, formatNumber, formatPercent, Loading, PageTitle } from '../components/ui';

const INTERVALS = ['minute', 'hour', 'day'] as const;
type Interval = (typeof INTERVALS)[number];

export default function Overview() {
  const [search, setSearch] = useSearchParams();
  const queryClient = useQueryClient();
  const [firstTrace, setFirstTrace] = useState<string>();
  const range: RangeKey = isRangeKey(search.get('range')) ? (search.get('range') as RangeKey) : '24h';
  const intervalParam = search.get('interval');
  const interval: Interval = INTERVALS.includes(intervalParam as Interval) ? (intervalParam as Interval) : RANGES[range].interval;
  const dates = useMemo(() => rangeDates(range), [range]);
  const query = { ...dates, interval };

  const anyTrace = useQuery({
    queryKey: ['traces', 'any'],
    queryFn: async () => unwrap(await api.GET('/spans/traces', { params: { query: { limit: '1' } } })),
  });
  const hasData = (anyTrace.data?.data.length ?? 0) > 0 || firstTrace !== undefined;
  const onFirstTrace = useCallback(
    (traceId: string) => {
      setFirstTrace(traceId);
      void queryClient.invalidateQueries({ queryKey: ['analytics'] });
    },
    [queryClient],
  );

  const key = (name: string) => ['analytics', name, query];
  const responses = {
    metrics: useQuery({ queryKey: key('metrics'), enabled: hasData, queryFn: async () => unwrap(await api.GET('/analytics/metrics', { params: { query } })) }),
    requests: useQuery({
      queryKey: key('requests'),
      enabled: hasData,
      queryFn: async () => unwrap(await api.GET('/analytics/traces/requests-over-time', { params: { query } })),
    }),
    outcomes: useQuery({
      queryKey: key('outcomes'),
      enabled: hasData,
      queryFn: async () => unwrap(await api.GET('/analytics/traces/success-failure', { params: { query } })),
    }),
    latency: useQuery({
      queryKey: key('latency'),
      enabled: hasData,
      queryFn: async () => unwrap(await api.GET('/analytics/traces/latency-percentiles', { params: { query } })),
    }),
    tokens: useQuery({
      queryKey: key('tokens'),
      enabled: hasData,
      queryFn: async () => unwrap(await api.GET('/analytics/traces/token-usage', { params: { query } })),
    }),
    costs: useQuery({ queryKey: key('costs'), enabled: hasData, queryFn: async () => unwrap(await api.GET('/analytics/costs', { params: { query } })) }),
  };

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    next.set(name, value);
    if (name === 'range') next.delete('interval');
    setSearch(next);
  };

  if (anyTrace.isLoading) return <Loading />;
  if (!hasData) {
    return (
      <>
        <PageTitle title="Welcome" />
        <ErrorMessage error={anyTrace.error} />
        <FirstRun onFirstTrace={onFirstTrace} />
      </>
    );
  }
  const metrics = responses.metrics.data?.data;
  return (
    <>
      <PageTitle title="Overview">
        <RangeSelect value={range} onChange={(r) => setParam('range', r)} />
        <label>
          Interval{' '}
          <select value={interval} onChange={(e) => setParam('interval', e.target.value)}>
            {INTERVALS.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </select>
        </label>
      </PageTitle>
      {firstTrace ? (
        <p className="notice" role="status">
          Your first trace arrived. <Link to={`/traces/${encodeURIComponent(firstTrace)}`}>Open it</Link>
        </p>
      ) : null}
      {Object.values(responses).map((r, i) => (
        <ErrorMessage key={i} error={r.error} />
      ))}
      {metrics ? (
        <dl className="cards">
          <Card label="Requests" value={formatNumber(metrics.totalTraces)} />
          <Card label="Error rate" value={formatPercent(metrics.errorRate)} />
          <Card label="p50 latency" value={formatDuration(metrics.p50LatencyMs)} />
          <Card label="p95 latency" value={formatDuration(metrics.p95LatencyMs)} />
          <Card label="p99 latency" value={formatDuration(metrics.p99LatencyMs)} />
          <Card label="Tokens" value={formatNumber(metrics.totalTokens)} />
          <Card label="Cost" value={formatCost(metrics.totalCost)} />
        </dl>
      ) : (
        <Loading />
      )}
      <div className="charts">
        {responses.requests.data ? (
          <TimeChart
            title="Requests"
            timestamps={responses.requests.data.data.series.map((p) => p.timestamp)}
            series={[{ label: 'Requests', color: '#2563eb', values: responses.requests.data.data.series.map((p) => p.requestCount) }]}
            format={formatNumber}
          />
        ) : null}
        {responses.outcomes.data ? (
          <TimeChart
            title="Error rate"
            timestamps={responses.outcomes.data.data.series.map((p) => p.timestamp)}
            series={[{ label: 'Error rate', color: '#dc2626', values: responses.outcomes.data.data.series.map((p) => p.errorRate) }]}
            format={formatPercent}
          />
        ) : null}
        {responses.latency.data ? (
          <TimeChart
            title="Latency"
            timestamps={responses.latency.data.data.series.map((p) => p.timestamp)}
            series={[
              { label: 'p50', color: '#16a34a', values: responses.latency.data.data.series.map((p) => p.p50Ms) },
              { label: 'p95', color: '#d97706', values: responses.latency.data.data.series.map((p) => p.p95Ms) },
              { label: 'p99', color: '#dc2626', values: responses.latency.data.data.series.map((p) => p.p99Ms) },
            ]}
            format={formatDuration}
          />
        ) : null}
        {responses.tokens.data ? (
          <TimeChart
            title="Tokens"
            timestamps={responses.tokens.data.data.series.map((p) => p.timestamp)}
            series={[
              { label: 'Input', color: '#7c3aed', values: responses.tokens.data.data.series.map((p) => p.inputTokens) },
              { label: 'Output', color: '#0891b2', values: responses.tokens.data.data.series.map((p) => p.outputTokens) },
            ]}
            format={formatNumber}
          />
        ) : null}
        {responses.costs.data ? (
          <TimeChart
            title="Cost"
            timestamps={responses.costs.data.data.series.map((p) => p.timestamp)}
            series={[{ label: 'Cost', color: '#0f766e', values: responses.costs.data.data.series.map((p) => p.cost) }]}
            format={formatCost}
          />
        ) : null}
      </div>
      {metrics ? (
        <section>
          <h2>Agents</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Requests</th>
                <th scope="col">Error rate</th>
                <th scope="col">Avg latency</th>
                <th scope="col">p95 latency</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {metrics.byAgent.map((a) => (
                <tr key={a.agentId}>
                  <td>
                    <AgentLink agentId={a.agentId} name={a.agentName} />
                  </td>
                  <td>{formatNumber(a.requestCount)}</td>
                  <td>{formatPercent(a.errorRate)}</td>
                  <td>{formatDuration(a.avgLatencyMs)}</td>
                  <td>{formatDuration(a.p95LatencyMs)}</td>
                  <td>{formatNumber(a.totalTokens)}</td>
                  <td>{formatCost(a.estimatedCost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </>
  );
}

function Card({ label, value }: { label: string; value: string }) {
  return (
    <div className="card">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
