import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { Badge, Empty, ErrorMessage, formatCost, formatDuration, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

/** One session: its traces in order, as the turns of a conversation. */
export default function SessionDetail() {
  const { sessionId = '' } = useParams();
  const traces = useQuery({
    queryKey: ['session', sessionId],
    queryFn: async () => unwrap(await api.GET('/spans/traces', { params: { query: { sessionId, limit: '100' } } })).data,
  });
  const turns = [...(traces.data ?? [])].reverse();
  return (
    <>
      <PageTitle title={`Session ${sessionId}`} />
      <ErrorMessage error={traces.error} />
      {traces.isLoading ? <Loading /> : null}
      {traces.data?.length === 0 ? <Empty>No traces in this session.</Empty> : null}
      <ol className="conversation turns">
        {turns.map((t) => (
          <li key={t.traceId} className="turn">
            <p>
              <Badge tone={statusTone(t.status)}>{t.status}</Badge> <Link to={`/traces/${encodeURIComponent(t.traceId)}`}>{t.name}</Link>{' '}
              <span className="muted small">
                {formatTime(t.startTime)} · {formatDuration(t.durationMs)} · {formatCost(t.cost)} · {t.agentName ?? 'no agent'}
              </span>
            </p>
          </li>
        ))}
      </ol>
    </>
  );
}
