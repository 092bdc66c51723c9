import { noteAgentsSeen } from '../agents/agents.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import { leaveSession, recordSessions } from '../sessions/ingest.ts';
import { summarizeTrace } from '../spans/summary.ts';
import type { Store } from '../store.ts';

/**
 * The index layout of bounded lists (issue 18): traces listed by state for the tenant and the agent
 * and by user, logs by level, signals by name, alerts by status, sessions, agents' `lastSeenAt`; since
 * `-2`, every pending trace with its close marker (`putSummary` writes it). Items written before it
 * are moved into it once by `reindexStep`.
 */
export const LIST_LAYOUT = 'bounded-lists-2';

/** Items a scan page reads (by default), and how many of them are rewritten at once. */
const SCAN_PAGE = 200;
const REWRITES_AT_ONCE = 16;

export type ReindexDeps = { store: Pick<Store, 'reindex' | 'traces' | 'sessions' | 'agents'>; clock: Clock; ids: Ids; queue: QueuePort };

/**
 * Walks the table a scan page at a time until done or `budgetMs` is spent, rewriting what the current
 * layout changed, and records where it stopped, so the next run goes on from there (resumable), and a
 * finished walk costs a run one read. Idempotent: every rewrite is one the ingest worker could make
 * (a summary recomputed from its spans, on the revision condition, with a new version so that a
 * worker that read the summary before reads it again), and none brings back a deleted item.
 */
export async function reindexStep(deps: ReindexDeps, budgetMs: number, pageSize = SCAN_PAGE): Promise<{ rewritten: number; done: boolean }> {
  const { reindex } = deps.store;
  const deadline = deps.clock.now().getTime() + budgetMs;
  const progress = await reindex.progress(LIST_LAYOUT);
  let rewritten = 0;
  // At least one page a run, however small the budget.
  for (let first = true; !progress.done && (first || deps.clock.now().getTime() < deadline); first = false) {
    const page = await reindex.scanPage(progress.startKey, pageSize);
    for (let i = 0; i < page.items.length; i += REWRITES_AT_ONCE)
      await Promise.all(page.items.slice(i, i + REWRITES_AT_ONCE).map((item) => rewrite(item, deps)));
    rewritten += page.items.length;
    progress.items += page.items.length;
    progress.done = page.next === undefined;
    if (page.next) progress.startKey = page.next;
    else delete progress.startKey;
    await reindex.saveProgress(LIST_LAYOUT, progress);
  }
  return { rewritten, done: progress.done };
}

async function rewrite(item: Record<string, unknown>, deps: ReindexDeps): Promise<void> {
  const tenantId = String(item['tenantId']);
  switch (item['entity']) {
    case 'traceSummary': {
      // Recomputed from the spans, as the worker would: new fields (tools, error types), new index entries, its session, its agent's lastSeenAt.
      const spans = await deps.store.traces.spansOf(tenantId, String(item['traceId']));
      if (spans.length === 0) return;
      // The stored revision may be past its spans' write times (see summarizeTraces): the same spans rewrite it.
      const revision = Math.max(
        spans.reduce((max, s) => Math.max(max, s.writtenAtMs), 0),
        Number(item['revision'] ?? 0),
      );
      const summary = summarizeTrace(spans, (item['closedAtMs'] as number | null | undefined) ?? null);
      const storedSession = (item['sessionId'] as string | null | undefined) ?? null;
      // Moves a writer that failed before its last removal left to finish (see `recordSessions`), as
      // the summary names them now.
      const stillLeaving = (await deps.store.traces.summaries(tenantId, [summary.traceId])).get(summary.traceId)?.movesLeft ?? [];
      const leaving = await leaveSession(tenantId, summary.traceId, storedSession, summary.sessionId, deps);
      if (await deps.store.traces.putSummary(tenantId, summary, revision, Number(item['expiresAt']), { mustExist: true, leaving })) {
        const movesLeft = leaving ? [...stillLeaving, leaving] : stillLeaving;
        await recordSessions(tenantId, [{ summary, revision, movesLeft }], Number(item['expiresAt']), deps);
        await noteAgentsSeen(tenantId, [summary], deps.store.agents);
      } else if (leaving !== null) {
        // A worker wrote a newer summary meanwhile: if it keeps the trace in the session this walk took
        // it out of, the copy there may have gone with that removal, and is written again.
        const current = (await deps.store.traces.summaries(tenantId, [summary.traceId])).get(summary.traceId);
        if (current?.summary.sessionId === leaving.sessionId) await recordSessions(tenantId, [current], current.expiresAt, deps);
      }
      return;
    }
    case 'log':
    case 'signal':
      return deps.store.reindex.rewriteTimelineEntry(item);
    case 'alert':
      return deps.store.reindex.rewriteAlert(item);
  }
}
