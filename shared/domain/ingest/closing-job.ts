import type { Clock, QueuePort } from '../ports.ts';
import { type CloseMarker, traceState } from '../spans/ports.ts';
import { TRACE_QUIET_MS } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import { type CloseTracesMessage, MAX_CLOSE_TRACES } from './messages.ts';

/**
 * A quiet trace's marker, once its close message is sent, is looked at again after this: by then the
 * worker has closed it (and the marker goes), or a span arrived meanwhile, or the message is still
 * being retried (and is sent again: closing is idempotent).
 */
const RECHECK_MS = 15 * 60_000;
/** Markers read from each of the markers' partitions at a time. */
const MARKERS_PER_PARTITION = 25;

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
    const messages: CloseTracesMessage[] = [];
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
