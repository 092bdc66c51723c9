import type { IngestMessage } from '../ingest/messages.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { NewMove, SessionMove } from '../spans/ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import type { LargeSession } from './ports.ts';
import { refreshComing, refreshDelaySeconds } from './sessions.ts';

export interface RecordSessionsDeps {
  store: Pick<Store, 'sessions' | 'traces'>;
  queue: QueuePort;
  clock: Clock;
}

/**
 * Before a summary that moves its trace out of its session (to another one, or to none: a trace is
 * in the session its earliest span naming one names, so a span that started earlier can move it) is
 * written: takes the trace out of the session it leaves, and answers the move, for the summary to
 * name among its `movesLeft` and `recordSessions` to take the trace out once more after the
 * summary. Out before the summary, so that a redelivery after a crash between the two still finds the
 * old session in the stored summary, and the move to make.
 */
export async function leaveSession(
  tenantId: string,
  traceId: string,
  stored: string | null,
  next: string | null,
  deps: { store: Pick<Store, 'sessions'>; ids: Ids },
): Promise<NewMove | null> {
  if (stored === null || stored === next) return null;
  await deps.store.sessions.removeTraces(tenantId, stored, [traceId]);
  return { sessionId: stored, moveId: deps.ids.next('mov') };
}

/**
 * Keeps the sessions of the traces a message changed, after their summaries: each trace's
 * contribution, then each session's figures, recomputed once per session, or for a large session,
 * by a refresh queued for it (`queueRefreshes`). Idempotent: a redelivered message writes the same
 * contributions and finds the figures already right (or queues one more refresh).
 *
 * A trace whose summary moved it out of a session (`movesLeft`: the move `leaveSession` answered,
 * with those its stored summary still names) is taken out of that session once more: a worker
 * that read the summary before the move may have written its copy there in between, and checked it
 * while the summary still named the old session. The summary keeps each move (written with it) until
 * this last removal is done, so a writer that fails first leaves it to the next that stores the
 * trace's sessions: its own retry, a worker storing more of its spans, the closing of a pending
 * trace, the re-index, or the agent purge. Each move is a mark of its own: a mover that finishes takes
 * off its own, never that of another mover out of the same session.
 */
export async function recordSessions(
  tenantId: string,
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number; movesLeft?: readonly SessionMove[]; replacedStartMs?: number }>,
  expiresAt: number,
  deps: RecordSessionsDeps,
): Promise<void> {
  const { store } = deps;
  const inSessions = traces.flatMap(({ summary, revision, replacedStartMs }) =>
    summary.sessionId === null
      ? []
      : [{ summary: { ...summary, sessionId: summary.sessionId }, revision, ...(replacedStartMs === undefined ? {} : { replacedStartMs }) }],
  );
  const moved = await store.sessions.putTraces(tenantId, inSessions, expiresAt);
  const large = await store.sessions.refresh(tenantId, [...new Set(inSessions.map((t) => t.summary.sessionId))], moved);
  await queueRefreshes(tenantId, large, deps);
  for (const { summary, movesLeft = [] } of traces) {
    for (const sessionId of new Set(movesLeft.map((left) => left.sessionId))) {
      await store.sessions.removeMovedTrace(tenantId, sessionId, summary.traceId);
      for (const left of movesLeft.filter((l) => l.sessionId === sessionId)) await store.traces.forgetMove(tenantId, summary.traceId, left);
    }
  }
}

/**
 * Queues a refresh of each large session that has none coming, delayed by `refreshDelaySeconds`,
 * then notes it on the session, so that the workers storing its traces until it is due leave them to
 * it. A worker's contribution is written before it reads the note, and the refresh takes the note off
 * before it reads the contributions: a contribution it misses is written after the note went, and its
 * worker queues the next refresh. Sent before the note: a worker that fails between the two leaves a
 * refresh queued and no note, so the next worker queues one more (a refresh is idempotent). A note
 * counts only until its refresh is due (`refreshComing`), so one written after its refresh ran (its
 * worker held up between the two) stops no one. A refresh takes off only notes of refreshes due no
 * later than itself, and a note never replaces one due later: two refreshes queued at once (workers
 * that found no note together) do not leave every later refresh with a twin.
 */
async function queueRefreshes(tenantId: string, large: readonly LargeSession[], deps: RecordSessionsDeps) {
  const nowMs = deps.clock.now().getTime();
  const due = large.filter((s) => !refreshComing(s.refreshDueAtMs, nowMs));
  if (due.length === 0) return;
  const notes = await Promise.all(
    due.map(async ({ sessionId, traceCount }) => {
      const delaySeconds = refreshDelaySeconds(traceCount);
      const dueAtMs = nowMs + delaySeconds * 1000;
      await deps.queue.send('ingest', [{ kind: 'refresh-session', tenantId, sessionId, dueAtMs }], { delaySeconds });
      return { sessionId, dueAtMs };
    }),
  );
  await deps.store.sessions.noteRefreshQueued(tenantId, notes);
}

/** The ingest worker's handling of a `refresh-session` message: the large session's figures, recomputed from all of its traces. */
export async function refreshQueuedSession(
  { tenantId, sessionId, dueAtMs }: Extract<IngestMessage, { kind: 'refresh-session' }>,
  deps: { store: Pick<Store, 'sessions'> },
): Promise<void> {
  await deps.store.sessions.refreshQueued(tenantId, sessionId, dueAtMs);
}
