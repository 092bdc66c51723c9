import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { AgentLink } from '../components/AgentLink';
import { AlertActions } from '../components/alert-actions';
import { showBidiControls } from '../components/UserText';
import { Badge, ErrorMessage, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

/** The page alert e-mails link to: `/alerts/:alertId`. */
export default function AlertDetail() {
  const { alertId = '' } = useParams();
  const alert = useQuery({
    queryKey: ['alert', alertId],
    queryFn: async () => unwrap(await api.GET('/spans/alerts/{alertId}', { params: { path: { alertId } } })).data,
  });
  if (alert.isLoading) return <Loading />;
  if (!alert.data) return <ErrorMessage error={alert.error} />;
  const a = alert.data;
  return (
    <>
      <PageTitle title={showBidiControls(a.message)}>
        <Badge tone={statusTone(a.severity)}>{a.severity}</Badge>
        <Badge tone={statusTone(a.status)}>{a.status}</Badge>
      </PageTitle>
      <AlertActions alert={a} />
      <dl className="facts">
        <div>
          <dt>Type</dt>
          <dd>
            {a.type} ({a.category === 'llm' ? 'judged by the LLM' : 'threshold'})
          </dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd>
            <AgentLink agentId={a.agentId} name={a.agentName} />
          </dd>
        </div>
        <div>
          <dt>Occurrences</dt>
          <dd>{formatNumber(a.occurrenceCount)}</dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>{formatTime(a.firstSeenAt)}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{formatTime(a.lastSeenAt)}</dd>
        </div>
        {a.value !== null ? (
          <div>
            <dt>Value / threshold</dt>
            <dd>
              {a.value} / {a.threshold ?? '—'}
            </dd>
          </div>
        ) : null}
        {a.acknowledgedAt ? (
          <div>
            <dt>Acknowledged</dt>
            <dd>{formatTime(a.acknowledgedAt)}</dd>
          </div>
        ) : null}
        {a.resolvedAt ? (
          <div>
            <dt>Resolved</dt>
            <dd>{formatTime(a.resolvedAt)}</dd>
          </div>
        ) : null}
      </dl>
      {a.reasoning ? (
        <section aria-labelledby="reasoning">
          <h2 id="reasoning">The judge's reasoning</h2>
          <blockquote>{a.reasoning}</blockquote>
        </section>
      ) : null}
      <section aria-labelledby="alert-traces">
        <h2 id="alert-traces">Traces</h2>
        <ul className="plain">
          {a.traceIds.map((traceId) => (
            <li key={traceId}>
              <Link to={`/traces/${encodeURIComponent(traceId)}`} className="mono">
                {traceId}
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
