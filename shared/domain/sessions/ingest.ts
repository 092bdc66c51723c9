import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';

/**
 * Keeps the sessions of the traces a message changed, after their summaries: each trace's
 * contribution, then each session's figures, recomputed once per session. Idempotent: a redelivered
 * message writes the same contributions and finds the figures already right.
 *
 * A trace whose summary moved it to another session (`leftSession`, out of which its writer took it
 * before writing the summary) is taken out of the old session once more: a worker that read the
 * summary before the move may have written its copy there in between, and checked it while the
 * summary still named the old session.
 */
export async function recordSessions(
  tenantId: string,
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number; leftSession?: string | null }>,
  expiresAt: number,
  store: Pick<Store, 'sessions'>,
): Promise<void> {
  const inSessions = traces.flatMap(({ summary, revision }) =>
    summary.sessionId === null ? [] : [{ summary: { ...summary, sessionId: summary.sessionId }, revision }],
  );
  await store.sessions.putTraces(tenantId, inSessions, expiresAt);
  await store.sessions.refresh(tenantId, [...new Set(inSessions.map((t) => t.summary.sessionId))]);
  for (const { summary, leftSession } of traces) {
    if (leftSession) await store.sessions.removeTrace(tenantId, leftSession, summary.traceId);
  }
}
