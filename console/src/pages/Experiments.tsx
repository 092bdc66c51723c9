import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { CursorPager } from '../components/CursorPager';
import { withChanges } from '../components/TimeRangePicker';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, Empty, ErrorMessage, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

export default function Experiments() {
  const [search, setSearch] = useSearchParams();
  const cursor = search.get('cursor');
  const status = search.get('status') ?? '';
  const experiments = useQuery({
    queryKey: ['experiments', cursor, status],
    queryFn: async () =>
      unwrap(
        await api.GET('/experiments', {
          params: { query: { limit: '50', ...(cursor ? { cursor } : {}), ...(status ? { status: status as 'running' } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageTitle title="Experiments" />
      <CreateExperiment />
      <form className="filters" aria-label="Experiment filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setSearch(withChanges(search, { status: e.target.value }))}>
            <option value="">Any status</option>
            {['draft', 'running', 'paused', 'stopped'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      <ErrorMessage error={experiments.error} />
      {experiments.isLoading ? <Loading /> : null}
      {experiments.data?.data.length === 0 ? <Empty>No experiments yet.</Empty> : null}
      {experiments.data?.data.length ? (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Experiment</th>
                <th scope="col">Status</th>
                <th scope="col">Variants</th>
                <th scope="col">Primary metric</th>
                <th scope="col">Traffic</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {experiments.data.data.map((x) => (
                <tr key={x.id}>
                  <td>
                    <Link to={`/experiments/${encodeURIComponent(x.id)}`}>
                      <UserText text={x.name} />
                    </Link>
                  </td>
                  <td>
                    <Badge tone={statusTone(x.status)}>{x.status}</Badge>
                  </td>
                  <td className="text">{x.variants.map((v) => `${v.key} ${v.weight}%`).join(', ')}</td>
                  <td>{x.primaryMetric}</td>
                  <td>{x.trafficPercentage}%</td>
                  <td className="nowrap">{formatTime(x.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <CursorPager pagination={experiments.data.pagination} noun="experiments" />
        </>
      ) : null}
    </>
  );
}

/** A variant's config as typed: empty is none, else it must be a JSON object; undefined when it is not one. */
function parseConfig(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function CreateExperiment() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ name: '', description: '', agentId: '', primaryMetric: 'successRate', trafficPercentage: 100 });
  const [variants, setVariants] = useState([
    { key: 'control', weight: 50, config: '' },
    { key: 'treatment', weight: 50, config: '' },
  ]);
  const configs = variants.map((v) => parseConfig(v.config));
  const agents = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, enabled: open, staleTime: 60_000 });
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/experiments', {
          body: {
            name: form.name,
            description: form.description,
            primaryMetric: form.primaryMetric,
            trafficPercentage: form.trafficPercentage,
            variants: variants.map((v, i) => ({ key: v.key, weight: v.weight, config: configs[i] ?? {} })),
            ...(form.agentId ? { agentId: form.agentId } : {}),
          },
        }),
      ).data,
    onSuccess: (x) => {
      void queryClient.invalidateQueries({ queryKey: ['experiments'] });
      void navigate(`/experiments/${encodeURIComponent(x.id)}`);
    },
  });
  if (!open) {
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          New experiment
        </button>
      </p>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (configs.every((c) => c !== undefined)) create.mutate();
  };
  return (
    <form className="form" onSubmit={submit} aria-label="New experiment">
      <div className="row wrap">
        <label>
          Name
          <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </label>
        <label>
          Agent
          <select value={form.agentId} onChange={(e) => setForm({ ...form, agentId: e.target.value })}>
            <option value="">Any agent</option>
            {agents.data?.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {showBidiControls(a.name)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Primary metric <span className="muted">(successRate, latency, cost or a signal name)</span>
          <input required value={form.primaryMetric} onChange={(e) => setForm({ ...form, primaryMetric: e.target.value })} />
        </label>
        <label>
          Traffic %
          <input
            type="number"
            min={0}
            max={100}
            value={form.trafficPercentage}
            onChange={(e) => setForm({ ...form, trafficPercentage: Number(e.target.value) })}
          />
        </label>
      </div>
      <label>
        Description
        <input value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
      </label>
      <fieldset>
        <legend>Variants (weights sum to 100)</legend>
        {variants.map((v, i) => (
          <div className="row" key={i}>
            <label>
              Key {i + 1}
              <input value={v.key} onChange={(e) => setVariants(variants.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))} />
            </label>
            <label>
              Weight {i + 1}
              <input
                type="number"
                value={v.weight}
                onChange={(e) => setVariants(variants.map((x, j) => (j === i ? { ...x, weight: Number(e.target.value) } : x)))}
              />
            </label>
            <label>
              Config {i + 1} (JSON object, optional)
              <input
                className="mono"
                value={v.config}
                placeholder='{"model": "gpt-4o-mini"}'
                aria-invalid={configs[i] === undefined}
                aria-describedby={configs[i] === undefined ? `config-problem-${i}` : undefined}
                onChange={(e) => setVariants(variants.map((x, j) => (j === i ? { ...x, config: e.target.value } : x)))}
              />
              {configs[i] === undefined ? (
                <span className="field-error" id={`config-problem-${i}`} role="alert">
                  Write a JSON object, such as {'{"temperature": 0.2}'}, or leave it empty.
                </span>
              ) : null}
            </label>
            {variants.length > 2 ? (
              <button type="button" className="link" onClick={() => setVariants(variants.filter((_, j) => j !== i))}>
                Remove
              </button>
            ) : null}
          </div>
        ))}
        <button type="button" onClick={() => setVariants([...variants, { key: `variant-${variants.length + 1}`, weight: 0, config: '' }])}>
          Add variant
        </button>
      </fieldset>
      <ErrorMessage error={create.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create experiment
        </button>
        <button type="button" className="link" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
