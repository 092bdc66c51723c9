import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, type Schemas, unwrap } from '../api/client';
import { AgentLink } from '../components/AgentLink';
import { Content } from '../components/Content';
import { CursorPager } from '../components/CursorPager';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

type Turn = Schemas['SessionsGetResponse']['data']['traces'][number];

/** While a recount is queued, the page reads the session again this long after it is due (5 s at the soonest), and every 30 s while it is late. */
const RECOUNT_POLL_AFTER_DUE_MS = 2_000;
const RECOUNT_POLL_MIN_MS = 5_000;
const RECOUNT_POLL_LATE_MS = 30_000;

/** One session: its figures, and its traces in the order they started as the turns of a conversation. */
export default function SessionDetail() {
  const { sessionId = '' } = useParams();
  const [search] = useSearchParams();
  const cursor = search.get('cursor');
  const query = { limit: '20', ...(cursor ? { cursor } : {}) };
  const session = useQuery({
    queryKey: ['session', sessionId, query],
    queryFn: async () => unwrap(await api.GET('/sessions/{sessionId}', { params: { path: { sessionId }, query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => {
      const dueAt = q.state.data?.data.figuresRefreshDueAt;
      if (!dueAt) return false;
      const untilDue = new Date(dueAt).getTime() - Date.now();
      return untilDue > 0 ? Math.max(RECOUNT_POLL_MIN_MS, untilDue + RECOUNT_POLL_AFTER_DUE_MS) : RECOUNT_POLL_LATE_MS;
    },
  });
  const s = session.data?.data;
  return (
    <>
      <PageTitle title={`Session ${showBidiControls(sessionId)}`}>
        <Link to={`/traces?sessionId=${encodeURIComponent(sessionId)}`}>Its traces in the explorer</Link>
      </PageTitle>
      <ErrorMessage error={session.error} />
      {session.isLoading ? <Loading /> : null}
      {s && session.data ? (
        <>
          <dl className="cards" data-testid="session-figures">
            <Figure label="Agent" value={<AgentLink agentId={s.agentId} name={s.agentName} />} />
            <Figure label="User" value={s.userId ? showBidiControls(s.userId) : '—'} />
            <Figure label="Traces" value={formatNumber(s.traceCount)} />
            <Figure label="Errors" value={formatNumber(s.errorCount)} />
            <Figure label="Tokens" value={formatNumber(s.totalTokens)} detail={`${formatNumber(s.inputTokens)} in / ${formatNumber(s.outputTokens)} out`} />
            <Figure label="Cost" value={formatCost(s.cost)} />
            <Figure label="Duration" value={formatDuration(s.durationMs)} />
          </dl>
          <p className="muted small">
            First seen {formatTime(s.firstSeenAt)} · last seen {formatTime(s.lastSeenAt)}
          </p>
          {s.figuresRefreshDueAt ? <RecountNotice dueAt={s.figuresRefreshDueAt} /> : null}
          <section aria-labelledby="conversation-title">
            <h2 id="conversation-title">Conversation</h2>
            {s.traces.length === 0 ? <Empty>No traces on this page of the session.</Empty> : null}
            <ol className="turns" aria-busy={session.isPlaceholderData}>
              {s.traces.map((t) => (
                <TurnView key={t.traceId} turn={t} />
              ))}
            </ol>
            <CursorPager pagination={session.data.pagination} noun="traces" />
          </section>
        </>
      ) : null}
    </>
  );
}

/**
 * A large session is recounted by a refresh queued with a delay: until then the traces stored since
 * its last count are in the conversation (usually on its last pages: it reads oldest first) but not in
 * the figures.
 */
function RecountNotice({ dueAt }: { dueAt: string }) {
  const due = new Date(dueAt).getTime() > Date.now();
  return (
    <p className="notice" role="status" data-testid="session-recount">
      {due
        ? `The figures are recounted at ${formatTime(dueAt)}: the traces stored since the last count (usually the conversation's last ones) are not in them yet.`
        : `A recount was due at ${formatTime(dueAt)} and may not have run yet: the traces stored since the last count may not be in the figures.`}
    </p>
  );
}

function Figure({ label, value, detail }: { label: string; value: React.ReactNode; detail?: string }) {
  return (
    <div className="card">
      <dt>{label}</dt>
      <dd>{value}</dd>
      {detail ? <dd className="detail">{detail}</dd> : null}
    </div>
  );
}

/** A trace as a turn: what it was asked and what it answered (cut at 4 KB; the trace has them whole). */
function TurnView({ turn }: { turn: Turn }) {
  return (
    <li className="turn">
      <p className="turn-head">
        <Link to={`/traces/${encodeURIComponent(turn.traceId)}`}>
          <UserText text={turn.name} />
        </Link>{' '}
        <Badge tone={statusTone(turn.status)}>{turn.status}</Badge>{' '}
        <span className="muted small">
          {formatTime(turn.startTime)} · {formatDuration(turn.durationMs)} · {formatNumber(turn.totalTokens)} tokens · {formatCost(turn.cost)}
          {turn.agentName ? (
            <>
              {' · '}
              <UserText text={turn.agentName} />
            </>
          ) : null}
        </span>
      </p>
      <ol className="conversation">
        <li className="message message-user">
          <span className="role">Input</span>
          {turn.input === null ? <p className="muted">No input recorded.</p> : <Content text={turn.input} />}
        </li>
        <li className="message message-assistant">
          <span className="role">Output</span>
          {turn.output === null ? <p className="muted">No output recorded.</p> : <Content text={turn.output} />}
          {turn.errorTypes.length > 0 ? <p className="field-error">Failed: {turn.errorTypes.join(', ')}</p> : null}
        </li>
      </ol>
    </li>
  );
}
