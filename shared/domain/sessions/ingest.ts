import type { Ids } from '../ports.ts';
import type { NewMove, SessionMove } from '../spans/ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';

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
  await deps.store.sessions.removeTrace(tenantId, stored, traceId);
  return { sessionId: stored, moveId: deps.ids.next('mov') };
}

/**
 * Keeps the sessions of the traces a message changed, after their summaries: each trace's
 * contribution, then each session's figures, recomputed once per session. Idempotent: a redelivered
 * message writes the same contributions and finds the figures already right.
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
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number; movesLeft?: readonly SessionMove[] }>,
  expiresAt: number,
  store: Pick<Store, 'sessions' | 'traces'>,
): Promise<void> {
  const inSessions = traces.flatMap(({ summary, revision }) =>
    summary.sessionId === null ? [] : [{ summary: { ...summary, sessionId: summary.sessionId }, revision }],
  );
  await store.sessions.putTraces(tenantId, inSessions, expiresAt);
  await store.sessions.refresh(tenantId, [...new Set(inSessions.map((t) => t.summary.sessionId))]);
  for (const { summary, movesLeft = [] } of traces) {
    for (const sessionId of new Set(movesLeft.map((left) => left.sessionId))) {
      await store.sessions.removeMovedTrace(tenantId, sessionId, summary.traceId);
      for (const left of movesLeft.filter((l) => l.sessionId === sessionId)) await store.traces.forgetMove(tenantId, summary.traceId, left);
    }
  }
}
