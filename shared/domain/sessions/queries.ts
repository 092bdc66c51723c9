import type * as z from 'zod/mini';
import type { sessionListQuery } from '../../schemas/routes/sessions.ts';
import { NotFoundError } from '../errors.ts';
import type { PageInput } from '../paging/page.ts';
import { assertAgent } from '../spans/queries.ts';
import { traceView } from '../spans/views.ts';
import type { Store } from '../store.ts';
import { recountDue, sessionTraceTotal, sessionView, traceConversation } from './sessions.ts';

/** How many traces' spans a session page reads at once (for their inputs and outputs). */
const SPAN_READS_AT_ONCE = 16;

export async function listSessions(store: Pick<Store, 'agents' | 'sessions'>, tenantId: string, q: z.infer<typeof sessionListQuery>, page: PageInput) {
  await assertAgent(store, tenantId, q.agentId);
  const query = { agentId: q.agentId, userId: q.userId, startMs: q.startDate?.getTime(), endMs: q.endDate?.getTime() };
  const [result, total] = await Promise.all([store.sessions.page(tenantId, query, page), store.sessions.count(tenantId, query)]);
  return { ...result, items: result.items.map(sessionView), total: total.count, totalExact: total.exact };
}

/**
 * The session and a page of its traces in start order, each with what it was asked and answered; and,
 * for a large session whose recount is queued, when it is due (`figuresRefreshDueAt`).
 */
export async function getSession(store: Pick<Store, 'sessions' | 'traces'>, tenantId: string, sessionId: string, page: PageInput, nowMs: number) {
  const [session, result] = await Promise.all([
    store.sessions.get(tenantId, sessionId),
    store.sessions.tracesPage(tenantId, sessionId, {}, page, 'oldest-first'),
  ]);
  if (!session) throw new NotFoundError('Session');
  const traces = [];
  for (let i = 0; i < result.items.length; i += SPAN_READS_AT_ONCE) {
    const batch = result.items.slice(i, i + SPAN_READS_AT_ONCE);
    const spans = await Promise.all(batch.map((t) => store.traces.spansOf(tenantId, t.traceId, false)));
    traces.push(...batch.map((t, j) => ({ ...traceView(t), ...traceConversation(spans[j]!) })));
  }
  const due = recountDue(session.refreshDueAtMs, nowMs);
  const figuresRefreshDueAt = due === null ? null : new Date(due).toISOString();
  const total = sessionTraceTotal(session);
  return { ...result, total: total.count, totalExact: total.exact, data: { ...sessionView(session), figuresRefreshDueAt, traces } };
}
