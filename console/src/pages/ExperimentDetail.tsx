import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ApiError, api, type Schemas, unwrap } from '../api/client';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, ErrorMessage, formatCost, formatDuration, formatNumber, formatPercent, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

type Experiment = Schemas['Experiment'];
type Comparison = NonNullable<Schemas['ExperimentsResultsResponse']['data']['comparisons'][number]['successRate']>;

const TRANSITIONS: Record<Experiment['status'], Array<'start' | 'pause' | 'stop'>> = {
  draft: ['start'],
  running: ['pause', 'stop'],
  paused: ['start', 'stop'],
  stopped: [],
};

export default function ExperimentDetail() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const experiment = useQuery({
    queryKey: ['experiment', id],
    queryFn: async () => unwrap(await api.GET('/experiments/{id}', { params: { path: { id } } })).data,
  });
  const agentId = experiment.data?.agentId ?? null;
  const agent = useQuery({
    queryKey: ['agent', agentId],
    enabled: agentId !== null,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/agents/{agentId}', { params: { path: { agentId: agentId! } } })).data,
  });
  const results = useQuery({
    queryKey: ['experiment', id, 'results'],
    queryFn: async () => unwrap(await api.GET('/experiments/{id}/results', { params: { path: { id } } })).data,
  });
  const transition = useMutation({
    mutationFn: async (action: 'start' | 'pause' | 'stop') => {
      const params = { params: { path: { id } } };
      if (action === 'start') return unwrap(await api.POST('/experiments/{id}/start', params));
      if (action === 'pause') return unwrap(await api.POST('/experiments/{id}/pause', params));
      return unwrap(await api.POST('/experiments/{id}/stop', params));
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['experiment', id] }),
  });
  if (experiment.isLoading) return <Loading />;
  if (!experiment.data) return <ErrorMessage error={experiment.error} />;
  const x = experiment.data;
  return (
    <>
      <PageTitle title={showBidiControls(x.name)}>
        <Badge tone={statusTone(x.status)}>{x.status}</Badge>
        {TRANSITIONS[x.status].map((action) => (
          <button key={action} type="button" onClick={() => transition.mutate(action)} disabled={transition.isPending}>
            {action[0]!.toUpperCase() + action.slice(1)}
          </button>
        ))}
      </PageTitle>
      <ErrorMessage error={transition.error} />
      {x.description ? <p>{x.description}</p> : null}
      <p className="muted">
        {x.agentId === null ? (
          'Any agent'
        ) : agent.data ? (
          <>
            Agent{' '}
            <Link to={`/agents/${encodeURIComponent(x.agentId)}`}>
              <UserText text={agent.data.name} />
            </Link>
          </>
        ) : agent.error instanceof ApiError && agent.error.status === 404 ? (
          <>
            Agent <span className="mono">{x.agentId}</span> <Badge tone="warn">deleted</Badge>
          </>
        ) : agent.isError ? (
          <>
            Agent <span className="mono">{x.agentId}</span> (could not be read)
          </>
        ) : (
          'Agent …'
        )}{' '}
        · Primary metric <strong>{x.primaryMetric}</strong> · {x.trafficPercentage}% of traffic · created {formatTime(x.createdAt)}
        {x.startedAt ? ` · started ${formatTime(x.startedAt)}` : ''}
        {x.stoppedAt ? ` · stopped ${formatTime(x.stoppedAt)}` : ''}
      </p>
      <ErrorMessage error={results.error} />
      {results.data ? (
        <>
          <p className={`verdict verdict-${results.data.verdict.outcome}`} role="status">
            <strong>Verdict:</strong> {results.data.verdict.message}
          </p>
          <h2>Variants</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">Weight</th>
                <th scope="col">Traces</th>
                <th scope="col">Success rate</th>
                <th scope="col">Latency p50 / p95</th>
                <th scope="col">Avg tokens</th>
                <th scope="col">Avg cost</th>
                <th scope="col">Config</th>
              </tr>
            </thead>
            <tbody>
              {results.data.variants.map((v) => (
                <tr key={v.key}>
                  <th scope="row">
                    {v.key}
                    {v.key === results.data.control ? <span className="muted"> (control)</span> : null}
                  </th>
                  <td>{v.weight}%</td>
                  <td>{formatNumber(v.traces)}</td>
                  <td>{formatPercent(v.successRate)}</td>
                  <td>
                    {formatDuration(v.latencyMs.p50)} / {formatDuration(v.latencyMs.p95)}
                  </td>
                  <td>{formatNumber(v.avgTokens === null ? null : Math.round(v.avgTokens))}</td>
                  <td>{formatCost(v.avgCost)}</td>
                  <td className="mono small">{configText(x.variants.find((variant) => variant.key === v.key)?.config)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Against the control</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">Metric</th>
                <th scope="col">Difference (95% CI)</th>
                <th scope="col">p-value</th>
                <th scope="col">Significant</th>
              </tr>
            </thead>
            <tbody>
              {results.data.comparisons.flatMap((c) =>
                (
                  [['success rate', c.successRate], ['latency', c.latency], ['tokens', c.tokens], ['cost', c.cost], ...Object.entries(c.signals)] as Array<
                    [string, Comparison | null]
                  >
                ).map(([metric, comparison]) => (
                  <tr key={`${c.variant}-${metric}`}>
                    <th scope="row">{c.variant}</th>
                    <td>{metric}</td>
                    <td>
                      {comparison
                        ? `${round(comparison.difference)} (${round(comparison.confidenceInterval.lower)} … ${round(comparison.confidenceInterval.upper)})`
                        : 'not enough data'}
                    </td>
                    <td>{comparison ? comparison.pValue.toFixed(4) : '—'}</td>
                    <td>{comparison ? <Badge tone={comparison.significant ? 'ok' : 'muted'}>{comparison.significant ? 'yes' : 'no'}</Badge> : '—'}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
          <p className="muted small">
            {formatNumber(results.data.traces.finished)} finished traces, {formatNumber(results.data.traces.unfinished)} unfinished. Sample ratio{' '}
            {results.data.sampleRatioMismatch.mismatch ? 'MISMATCH: the assignment is off its weights, so the results cannot be trusted' : 'as expected'}.
          </p>
        </>
      ) : null}
    </>
  );
}

/** A variant's config as compact JSON; an empty one says so. */
const configText = (config: Record<string, unknown> | undefined) => (config === undefined || Object.keys(config).length === 0 ? '—' : JSON.stringify(config));

const round = (n: number) => n.toLocaleString('en-US', { maximumSignificantDigits: 4 });
