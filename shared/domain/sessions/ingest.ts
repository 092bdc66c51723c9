import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';

/**
 * Before a summary that moves its trace out of its session (to another one, or to none: a trace is
 * in the session its earliest span naming one names, so a span that started earlier can move it) is
 * written: takes the trace out of the session it leaves, and answers that session, for the summary
 * to name among its `sessionsLeft` and `recordSessions` to take the trace out once more after the
 * summary. Out before the summary, so that a redelivery after a crash between the two still finds the
 * old session in the stored summary, and the move to make.
 */
export async function leaveSession(
  tenantId: string,
  traceId: string,
  stored: string | null,
  next: string | null,
  store: Pick<Store, 'sessions'>,
): Promise<string | null> {
  if (stored === null || stored === next) return null;
  await store.sessions.removeTrace(tenantId, stored, traceId);
  return stored;
}

/**
 * Keeps the sessions of the traces a message changed, after their summaries: each trace's
 * contribution, then each session's figures, recomputed once per session. Idempotent: a redelivered
 * message writes the same contributions and finds the figures already right.
 *
 * A trace whose summary moved it out of a session (`sessionsLeft`: the one `leaveSession` answered,
 * with those its stored summary was still leaving) is taken out of that session once more: a worker
 * that read the summary before the move may have written its copy there in between, and checked it
 * while the summary still named the old session. The summary names those sessions (written with the
 * move) until this last removal is done, so a writer that fails first leaves it to the next that
 * stores the trace's sessions: its own retry, a worker storing more of its spans, the closing of a
 * pending trace, the re-index, or the agent purge.
 */
export async function recordSessions(
  tenantId: string,
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number; sessionsLeft?: readonly string[] }>,
  expiresAt: number,
  store: Pick<Store, 'sessions' | 'traces'>,
): Promise<void> {
  const inSessions = traces.flatMap(({ summary, revision }) =>
    summary.sessionId === null ? [] : [{ summary: { ...summary, sessionId: summary.sessionId }, revision }],
  );
  await store.sessions.putTraces(tenantId, inSessions, expiresAt);
  await store.sessions.refresh(tenantId, [...new Set(inSessions.map((t) => t.summary.sessionId))]);
  for (const { summary, sessionsLeft = [] } of traces) {
    for (const left of sessionsLeft) {
      await store.sessions.removeMovedTrace(tenantId, left, summary.traceId);
      await store.traces.forgetSessionLeft(tenantId, summary.traceId, left);
    }
  }
}
