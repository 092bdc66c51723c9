import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas, unwrap } from '../api/client';
import { CopyButton } from '../components/CopyButton';
import { Badge, Empty, ErrorMessage, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

export default function Settings() {
  return (
    <>
      <PageTitle title="Settings" />
      <ApiKeys />
      <Profile />
    </>
  );
}

/** A secret the API shows once: on screen until dismissed, with a copy button. */
function NewSecret({ secret, onDone }: { secret: { name: string; key: string }; onDone: () => void }) {
  return (
    <div className="notice secret" role="status">
      <p>
        The key <strong>{secret.name}</strong>: copy it now, it is not shown again.
      </p>
      <p>
        <code data-testid="new-key">{secret.key}</code> <CopyButton text={secret.key} label="Copy key" />
      </p>
      <button type="button" className="link" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

function ApiKeys() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ name: string; key: string }>();
  const keys = useQuery({ queryKey: ['keys'], queryFn: async () => unwrap(await api.GET('/keys', { params: { query: { limit: '100' } } })).data });
  // The plan's summary counts the active keys too.
  const refreshList = () => {
    void queryClient.invalidateQueries({ queryKey: ['keys'] });
    void queryClient.invalidateQueries({ queryKey: ['profile'], exact: true });
  };
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/keys', { body: { name } })).data,
    onSuccess: (key) => {
      setSecret({ name: key.name, key: key.key });
      setName('');
      refreshList();
    },
  });
  const act = useMutation({
    mutationFn: async ({ key, action }: { key: Schemas['ApiKey']; action: 'rotate' | 'revoke' | 'delete' }) => {
      const params = { params: { path: { id: key.id } } };
      if (action === 'rotate') {
        const rotated = unwrap(await api.PUT('/keys/{id}/refresh', params)).data;
        setSecret({ name: rotated.name, key: rotated.key });
      } else if (action === 'revoke') unwrap(await api.POST('/keys/{id}/revoke', params));
      else unwrap(await api.DELETE('/keys/{id}', params));
    },
    onSuccess: refreshList,
  });
  const confirmThen = (key: Schemas['ApiKey'], action: 'rotate' | 'revoke' | 'delete') => {
    const what = {
      rotate: 'Rotate it? The current secret stops working at once.',
      revoke: 'Revoke it? It stops working at once.',
      delete: 'Delete it for good?',
    }[action];
    if (window.confirm(`${key.name}: ${what}`)) act.mutate({ key, action });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="muted">Keys let your agents and SDKs send data (header x-api-key). Keep them out of client-side code.</p>
      <form className="form inline-form" onSubmit={submit} aria-label="New API key">
        <label>
          Key name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorMessage error={create.error ?? act.error ?? keys.error} />
      {secret ? <NewSecret secret={secret} onDone={() => setSecret(undefined)} /> : null}
      {keys.isLoading ? <Loading /> : null}
      {keys.data?.length === 0 ? <Empty>No keys yet.</Empty> : null}
      {keys.data?.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id}>
                <td className="text">{key.name}</td>
                <td className="mono">
                  {key.prefix}…{key.lastFour}
                </td>
                <td>
                  <Badge tone={key.status === 'active' ? 'ok' : 'muted'}>{key.status}</Badge>
                </td>
                <td className="nowrap">{formatTime(key.createdAt)}</td>
                <td className="nowrap">{formatTime(key.lastUsedAt)}</td>
                <td className="actions">
                  {key.status === 'active' ? (
                    <>
                      <button type="button" onClick={() => confirmThen(key, 'rotate')} aria-label={`Rotate ${key.name} (${key.prefix}…${key.lastFour})`}>
                        Rotate
                      </button>
                      <button type="button" onClick={() => confirmThen(key, 'revoke')} aria-label={`Revoke ${key.name} (${key.prefix}…${key.lastFour})`}>
                        Revoke
                      </button>
                    </>
                  ) : null}
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirmThen(key, 'delete')}
                    aria-label={`Delete ${key.name} (${key.prefix}…${key.lastFour})`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function Profile() {
  const profile = useQuery({ queryKey: ['profile'], queryFn: async () => unwrap(await api.GET('/users/profile')) });
  if (profile.isLoading) return <Loading />;
  if (!profile.data) return <ErrorMessage error={profile.error} />;
  const p = profile.data;
  const s = p.subscription;
  const unlimited = s.spansLimit === -1;
  return (
    <>
      <section aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <dl className="facts">
          <div>
            <dt>Name</dt>
            <dd>{p.name}</dd>
          </div>
          <div>
            <dt>E-mail</dt>
            <dd>
              {p.email} <Badge tone={p.isEmailVerified ? 'ok' : 'warn'}>{p.isEmailVerified ? 'verified' : 'not verified'}</Badge>
            </dd>
          </div>
          <div>
            <dt>Company</dt>
            <dd>{p.company ?? '—'}</dd>
          </div>
          <div>
            <dt>Sign-in</dt>
            <dd>{p.provider}</dd>
          </div>
          <div>
            <dt>Member since</dt>
            <dd>{formatTime(p.createdAt)}</dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="plan-title">
        <h2 id="plan-title">Plan and usage</h2>
        <p>
          <strong>{s.planName}</strong> <Badge tone={statusTone(s.status === 'active' || s.status === 'trialing' ? 'ok' : 'error')}>{s.status}</Badge>
          {'trialDaysRemaining' in s ? <span> · {s.trialExpired ? 'trial expired' : `${s.trialDaysRemaining} trial days left`}</span> : null}
        </p>
        {/* biome-ignore lint/a11y/noLabelWithoutControl: the label names the progress element inside it. */}
        <label className="usage">
          Spans this period: {formatNumber(s.spansUsed)} of {unlimited ? 'unlimited' : formatNumber(s.spansLimit)}
          {!unlimited ? <progress max={100} value={s.usagePercentage} /> : null}
        </label>
        <p className="muted">
          Period ends {formatTime(s.currentPeriodEnd)} · {formatNumber(p.resources.agentCount)} agents (limit{' '}
          {s.features.agents === -1 ? 'none' : s.features.agents}) · {formatNumber(p.resources.activeApiKeyCount)} active keys · {s.features.retention} days
          retention
        </p>
      </section>
    </>
  );
}
