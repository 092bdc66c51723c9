import { mapConcurrently, PER_TRACE_CALLS_AT_ONCE } from '../concurrency.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';

/**
 * Keeps the sessions of the traces a message changed: each trace's contribution (on the same revision
 * condition as its summary), then each session's figures, recomputed once per session. Idempotent:
 * a redelivered message writes the same contributions and finds the figures already right.
 */
export async function recordSessions(
  tenantId: string,
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number }>,
  expiresAt: number,
  store: Pick<Store, 'sessions'>,
): Promise<void> {
  const inSessions = traces.flatMap(({ summary, revision }) =>
    summary.sessionId === null ? [] : [{ summary: { ...summary, sessionId: summary.sessionId }, revision }],
  );
  await mapConcurrently(inSessions, PER_TRACE_CALLS_AT_ONCE, ({ summary, revision }) => store.sessions.putTrace(tenantId, summary, revision, expiresAt));
  const sessionIds = [...new Set(inSessions.map((t) => t.summary.sessionId))];
  await mapConcurrently(sessionIds, PER_TRACE_CALLS_AT_ONCE, (sessionId) => store.sessions.refresh(tenantId, sessionId));
}
