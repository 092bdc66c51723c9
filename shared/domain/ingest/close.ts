import { recordExperimentObservations } from '../experiments/observations.ts';
import { writeToLake } from '../lake/ingest.ts';
import { recordSessions } from '../sessions/ingest.ts';
import { traceState } from '../spans/ports.ts';
import { TRACE_QUIET_MS } from '../spans/summary.ts';
import type { CloseTracesMessage } from './messages.ts';
import { checkThresholds, finishTraces, type PersistDeps } from './persist.ts';

/**
 * The ingest worker's handling of a close message: each trace that is still pending and quiet is
 * closed (`closeSummary`, conditional on the summary the worker read, so a span arriving meanwhile
 * wins and the trace stays open), then set off as if its root had arrived: its session's copy (and
 * the last removal from the sessions it left that a failed writer did not finish), its
 * threshold alerts (a timeout: it did not finish), the finished-trace stages, its experiment
 * observation, its rows in the lake. A trace closed already (the message delivered again after a
 * failure past the close) goes through them again: they count it once. Answers how many traces it
 * closed.
 */
export async function closeTraces(message: CloseTracesMessage, deps: PersistDeps): Promise<number> {
  const { tenantId, traceIds } = message;
  const tenant = await deps.store.tenants.get(tenantId);
  if (!tenant) return 0; // the account was deleted
  const nowMs = deps.clock.now().getTime();
  const stored = await deps.store.traces.summaries(tenantId, traceIds);
  let closedNow = 0;
  const closed = await Promise.all(
    [...stored.values()].map(async (summary) => {
      if (summary.summary.closedAtMs !== null) return summary;
      if (traceState(summary.summary) !== 'pending' || summary.revision + TRACE_QUIET_MS > nowMs) return undefined;
      const done = await deps.store.traces.closeSummary(tenantId, summary, nowMs);
      if (done) closedNow++;
      return done;
    }),
  );
  const traces = await Promise.all(
    closed
      .filter((c) => c !== undefined)
      .map(async ({ summary, revision, expiresAt, movesLeft }) => ({
        summary,
        revision,
        expiresAt,
        movesLeft,
        stored: await deps.store.traces.spansOf(tenantId, summary.traceId),
      })),
  );
  if (traces.length === 0) return 0;
  const expiresAt = Math.max(...traces.map((t) => t.expiresAt));
  await recordSessions(tenantId, traces, expiresAt, deps);
  await checkThresholds(
    tenantId,
    traces.map((t) => ({ ...t, arrived: [] })),
    deps,
    { closing: true },
  );
  await finishTraces(tenant, traces, expiresAt, deps);
  await recordExperimentObservations(tenantId, traces, [], expiresAt, deps.store);
  await writeToLake(tenantId, traces, [], expiresAt, deps);
  return closedNow;
}
