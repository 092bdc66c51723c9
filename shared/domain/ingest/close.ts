import { recordExperimentObservations } from '../experiments/observations.ts';
import type { Clock, QueuePort } from '../ports.ts';
import { recordSessions } from '../sessions/ingest.ts';
import { type CloseMarker, traceState } from '../spans/ports.ts';
import { TRACE_QUIET_MS } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import { type IngestMessage, MAX_CLOSE_TRACES } from './messages.ts';
import { finishTraces, type PersistDeps } from './persist.ts';

type CloseMessage = Extract<IngestMessage, { kind: 'close-traces' }>;

/**
 * A quiet trace's marker, once its close message is sent, is looked at again after this: by then the
 * worker has closed it (and the marker goes), or a span arrived meanwhile, or the message is still
 * being retried (and is sent again: closing is idempotent).
 */
const RECHECK_MS = 15 * 60_000;
/** Markers read from each of the markers' partitions at a time. */
const MARKERS_PER_PARTITION = 25;

/**
 * The ingest worker's handling of a close message: each trace that is still pending and quiet is
 * closed (`closeSummary`, conditional on the summary the worker read, so a span arriving meanwhile
 * wins and the trace stays open), then set off as if its root had arrived: its session's copy, the
 * finished-trace stages, its experiment observation. A trace closed already (the message delivered
 * again after a failure past the close) goes through them again: they count it once. Answers how
 * many traces it closed.
 */
export async function closeTraces(message: CloseMessage, deps: PersistDeps): Promise<number> {
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
      .map(async ({ summary, revision, expiresAt }) => ({ summary, revision, expiresAt, stored: await deps.store.traces.spansOf(tenantId, summary.traceId) })),
  );
  if (traces.length === 0) return 0;
  const expiresAt = Math.max(...traces.map((t) => t.expiresAt));
  await recordSessions(tenantId, traces, expiresAt, deps.store);
  await finishTraces(tenant, traces, expiresAt, deps);
  await recordExperimentObservations(tenantId, traces, [], expiresAt, deps.store);
  return closedNow;
}

/**
 * The closing job: reads the close markers that are due (a page from each partition at a time, until
 * none is left or `budgetMs` is spent) and, for each, looks at its trace: gone or no longer pending,
 * the marker goes; a span arrived since the marker was written, the marker moves to TRACE_QUIET_MS
 * after it; quiet, a close message goes to the ingest worker and the marker moves RECHECK_MS on.
 * The markers move only after the messages are sent, so a run that fails leaves them due for the next.
 * It reads the markers and the summaries they name, never a tenant's history.
 */
export async function closeQuietTraces(
  deps: { store: Pick<Store, 'traces'>; clock: Clock; queue: QueuePort },
  budgetMs: number,
): Promise<{ looked: number; closing: number }> {
  const { traces } = deps.store;
  const deadline = deps.clock.now().getTime() + budgetMs;
  let looked = 0;
  let closing = 0;
  do {
    const nowMs = deps.clock.now().getTime();
    const due = await traces.dueToClose(nowMs, MARKERS_PER_PARTITION);
    if (due.length === 0) break;
    looked += due.length;
    const messages: CloseMessage[] = [];
    const settle: Array<() => Promise<void>> = [];
    const byTenant = new Map<string, CloseMarker[]>();
    for (const marker of due) byTenant.set(marker.tenantId, [...(byTenant.get(marker.tenantId) ?? []), marker]);
    for (const [tenantId, markers] of byTenant) {
      const summaries = await traces.summaries(
        tenantId,
        markers.map((m) => m.traceId),
      );
      const quiet: CloseMarker[] = [];
      for (const marker of markers) {
        const stored = summaries.get(marker.traceId);
        if (!stored || traceState(stored.summary) !== 'pending') settle.push(() => traces.forgetClose(marker));
        else if (stored.revision + TRACE_QUIET_MS > nowMs) settle.push(() => traces.rescheduleClose(marker, stored.revision + TRACE_QUIET_MS));
        else {
          quiet.push(marker);
          settle.push(() => traces.rescheduleClose(marker, nowMs + RECHECK_MS));
        }
      }
      for (let i = 0; i < quiet.length; i += MAX_CLOSE_TRACES) {
        messages.push({ kind: 'close-traces', tenantId, traceIds: quiet.slice(i, i + MAX_CLOSE_TRACES).map((m) => m.traceId) });
      }
      closing += quiet.length;
    }
    if (messages.length > 0) await deps.queue.send('ingest', messages);
    await Promise.all(settle.map((move) => move()));
  } while (deps.clock.now().getTime() < deadline);
  return { looked, closing };
}
