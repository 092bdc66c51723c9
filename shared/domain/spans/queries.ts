import type * as z from 'zod/mini';
import type { logListQuery } from '../../schemas/routes/logs.ts';
import type { signalListQuery, signalSummaryQuery } from '../../schemas/routes/signals.ts';
import type { traceListQuery } from '../../schemas/routes/spans.ts';
import { BUCKET_MS, bucketStart, settledWindow } from '../analytics/buckets.ts';
import { retentionDaysOf } from '../analytics/queries.ts';
import { ALL_AGENTS } from '../analytics/rollup.ts';
import { daysBefore } from '../analytics/window.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import type { ListPage, Order, PageInput, Total } from '../paging/page.ts';
import { LONGEST_RETENTION_DAYS } from '../plans/plans.ts';
import type { Clock } from '../ports.ts';
import { sessionTraceTotal } from '../sessions/sessions.ts';
import type { Store } from '../store.ts';
import { type CountAhead, type CountPlan, countAhead, countByPlan, rememberPlan, samePlan } from './count-ahead.ts';
import { hasFreeFilters, type TraceQuery, traceState } from './ports.ts';
import { logView, orderSpans, signalView, spanView, summarizeSignals, traceView } from './views.ts';

/** The repositories one read takes. */
type ReadStore<K extends keyof Store> = Pick<Store, K>;

const DAY_MS = 86_400_000;
/** The signal summary looks at the last 7 days unless told otherwise (like the analytics). */
const DEFAULT_SUMMARY_DAYS = 7;

/** An agentId filter must name one of the tenant's agents; another tenant's id is as missing as an unknown one. */
export async function assertAgent(store: ReadStore<'agents'>, tenantId: string, agentId: string | undefined): Promise<void> {
  if (agentId && !(await store.agents.get(tenantId, agentId))) throw new NotFoundError('Agent');
}

const ms = (d: Date | undefined) => d?.getTime();

export async function listTraces(
  store: ReadStore<'agents' | 'traces' | 'rollups' | 'sessions' | 'tenants'>,
  clock: Clock,
  tenantId: string,
  q: TraceListQuery,
  asking: PageInput,
): Promise<ListPage<ReturnType<typeof traceView>>> {
  if (q.sessionId !== undefined) {
    await assertAgent(store, tenantId, q.agentId);
    return sessionTraces(store, tenantId, q.sessionId, q, asking, 'newest-first');
  }
  const { page, walkFromMs } = walkOf(asking);
  const asked = traceFilters(q);
  // A first page of a free filter counts its matches in the read that finds the page: it reads the budget either way.
  const countInPage = hasFreeFilters(asked) && page.after === undefined;
  const firstPage = page.skip === 0 && page.after === undefined;
  const counted = !countInPage && countedByRollups(asked);
  const nowMs = clock.now().getTime();
  const retentionDays = retentionDaysOf(store, tenantId);
  // The page is read at once, not after the plan's retention (where the lists begin: see windowStart)
  // nor the agents it leaves out (see pageLeavingOut): from where the tenant's lists began when this
  // process last listed them, else the longest retention's, and read again should the plan's window
  // begin elsewhere (a tenant's first list in this process, a plan changed); a page after a cursor,
  // from where its walk began. A count in the page reads its budget, so that read waits for the
  // retention rather than risk it twice.
  const guessed = within(asked, walkStart(walkFromMs, windowStart(nowMs, retentionSeen.get(tenantId) ?? LONGEST_RETENTION_DAYS)));
  const read = countInPage
    ? retentionDays.then((days) => store.traces.page(tenantId, within(asked, windowStart(nowMs, days)), page, { count: true }))
    : store.traces.page(tenantId, guessed, page);
  // A deeper page does not show the newest complete trace, where a range open at its end ends (a first page does: see traceTotal).
  const newest = counted && asked.endMs === undefined && !firstPage ? store.traces.completeStart(tenantId, asked, 'newest') : undefined;
  for (const early of [read, newest]) early?.catch(() => undefined); // awaited below, unless a read of the next round fails first
  const ahead = counted ? countAhead({ store, clock }, tenantId, asked, firstPage && asked.endMs === undefined) : undefined;
  // Read at once, none needing another: the agent filter's check, the agents the list leaves out, what the rollups' count needs.
  const [, deleted, counting, days] = await Promise.all([
    assertAgent(store, tenantId, q.agentId),
    q.agentId === undefined ? store.agents.deletedLately(tenantId) : { agentIds: [], complete: true },
    countedByRollups(asked) ? rollupCounting(store, tenantId, retentionDays) : undefined,
    retentionDays,
  ]);
  rememberRetention(tenantId, days);
  const from = walkStart(walkFromMs, windowStart(nowMs, days));
  const query = { ...within(asked, from), excludeAgents: deleted.agentIds };
  const readAgain = () => store.traces.page(tenantId, query, page, { count: countInPage });
  const guessedWrong = !countInPage && guessed.startMs !== query.startMs;
  const paged = guessedWrong
    ? readAgain().then((again) => ({ page: again, excludesDeleted: true }))
    : pageLeavingOut(read, deleted.agentIds, countInPage, readAgain);
  const hints = firstPage && counted ? paged.then(hintsOf) : undefined;
  hints?.catch(() => undefined); // a failed page fails the request through `paged`
  const [{ page: result }, total] = await Promise.all([
    paged,
    countInPage
      ? undefined
      : counting
        ? traceTotal({ store, clock }, tenantId, query, counting, { asked, hints, newest, ahead })
        : store.traces.count(tenantId, query),
  ]);
  const { count, exact } = total ?? result.counted!;
  return {
    items: result.items.map(traceView),
    hasMore: result.hasMore,
    ...(result.next ? { next: walkPosition(from, result.next) } : {}),
    total: count,
    totalExact: exact && deleted.complete,
  };
}

/**
 * A walk by cursor keeps the window it began in, a day older than today's at most: the position a
 * trace list's cursor carries starts with the first day of that window, so that a walk across
 * midnight UTC does not lose the day that left the window meanwhile, nor its total that day's
 * traces. Each page's cursor lives a day, so a walk kept going for days would otherwise keep its
 * window for ever, even past a plan cut short. A position without it (a cursor issued before
 * positions carried it) continues in the window of the day it is used.
 */
const WALK_POSITION = /^w(\d+)\|/;
const walkPosition = (fromMs: number, position: string) => `w${fromMs}|${position}`;
const walkStart = (walkFromMs: number | undefined, todayFromMs: number) =>
  walkFromMs === undefined ? todayFromMs : Math.max(walkFromMs, todayFromMs - DAY_MS);

function walkOf(page: PageInput): { page: PageInput; walkFromMs?: number } {
  const walk = page.after === undefined ? null : WALK_POSITION.exec(page.after);
  if (!walk) return { page };
  return { page: { ...page, after: page.after!.slice(walk[0].length) }, walkFromMs: Number(walk[1]) };
}

/** The plans' retentions this process last saw, by tenant, the least lately seen forgotten first: a guess at where a tenant's lists begin. */
const retentionSeen = new Map<string, number>();
const RETENTIONS_SEEN = 10_000;

function rememberRetention(tenantId: string, days: number): void {
  retentionSeen.delete(tenantId);
  retentionSeen.set(tenantId, days);
  if (retentionSeen.size > RETENTIONS_SEEN) retentionSeen.delete(retentionSeen.keys().next().value!);
}

/**
 * Where a tenant's trace lists begin: the first day of the plan's retention (the days agents' metrics
 * cover). A trace that started earlier is not listed nor counted, though TTL may not have deleted it
 * yet (a trace expires a retention after it was received, so one sent late can outlive its window).
 */
const windowStart = (nowMs: number, retentionDays: number) => settledWindow(nowMs, retentionDays).fromMs;

/** The query narrowed to the traces that started from `fromMs` on. */
const within = <Q extends TraceQuery>(q: Q, fromMs: number): Q & { startMs: number } => ({ ...q, startMs: Math.max(q.startMs ?? fromMs, fromMs) });

/**
 * The page read without leaving out the deleted agents, when it is the page that leaves them out:
 * their traces stay in the tenant's lists only while their purge runs, so a page rarely holds one.
 * When it does, or when the read also counted its matches (a deleted agent's would be among them),
 * the page is read again leaving them out. `excludesDeleted`: what the read found beyond the page left them out too.
 */
async function pageLeavingOut(
  read: Promise<TracePage>,
  leftOut: readonly string[],
  counted: boolean,
  readLeavingOut: () => Promise<TracePage>,
): Promise<{ page: TracePage; excludesDeleted: boolean }> {
  if (leftOut.length === 0) return { page: await read, excludesDeleted: true };
  const gone = new Set(leftOut);
  const first = await read;
  if (counted || first.items.some((t) => t.agentId !== null && gone.has(t.agentId))) return { page: await readLeavingOut(), excludesDeleted: true };
  return { page: first, excludesDeleted: false };
}

type TracePage = Awaited<ReturnType<Store['traces']['page']>>;

/** What a page read from the top of its lists tells its total (see traceTotal). */
interface PageHints {
  /** The newest complete trace's start: undefined when the lists hold none, unknown when the page holds only pending traces and there are more. */
  newestComplete: number | undefined | 'unknown';
  /** The pending traces, when the read counted them all. */
  pending?: Total;
}

function hintsOf({ page, excludesDeleted }: { page: TracePage; excludesDeleted: boolean }): PageHints {
  const complete = page.items.find((t) => traceState(t) !== 'pending');
  return {
    newestComplete: complete ? complete.startTimeMs : page.hasMore ? 'unknown' : undefined,
    ...(excludesDeleted && page.pendingCount !== undefined ? { pending: { count: page.pendingCount, exact: true } } : {}),
  };
}

type TraceListQuery = z.infer<typeof traceListQuery>;

const traceFilters = (q: TraceListQuery) => ({
  agentId: q.agentId,
  userId: q.userId,
  status: q.status,
  startMs: ms(q.startDate),
  endMs: ms(q.endDate),
  model: q.model,
  toolName: q.toolName,
  errorType: q.errorType,
  name: q.name,
  tag: q.tag,
  metadata: q.metadata === undefined ? undefined : metadataPair(q.metadata),
  minDurationMs: q.minDurationMs,
  maxDurationMs: q.maxDurationMs,
  minCost: q.minCost,
  minTokens: q.minTokens,
  hasAlert: q.hasAlert,
});

/** `key=value` split at its first `=` (a key holds none). */
const metadataPair = (filter: string) => {
  const at = filter.indexOf('=');
  return { key: filter.slice(0, at), value: filter.slice(at + 1) };
};

/** Ranges of start times longer than this are counted within a budget rather than from the rollups (a year and a bit of day buckets). */
const MAX_COUNTED_DAYS = 400;

/** Whether the rollups count a query's total: no free filter, no user (the rollups know neither). */
const countedByRollups = (q: TraceQuery) => !hasFreeFilters(q) && q.userId === undefined;

/** What a count from the rollups needs besides the range: the plan's retention (its settled days), the hours not recomputed yet. */
async function rollupCounting(store: ReadStore<'rollups'>, tenantId: string, retention: Promise<number>) {
  const [retentionDays, { hours: dirtyHours, recomputes }] = await Promise.all([retention, store.rollups.dirtyHoursAndRecomputes(tenantId)]);
  return { retentionDays, dirtyHours, recomputes };
}

/**
 * How many traces match a query without free filters or a user: the rollups count the finished traces
 * exactly (whole minutes of the range, its whole past days of the plan's retention from one settled
 * item, its ragged hours and minutes from one day and one hour bucket per end; the seconds at its
 * edges and the unfinished traces are counted in their lists, a few items each).
 *
 * `q` starts where its lists do (see windowStart), never open at its start. `early`: reads started
 * before the others. `asked`: the query as asked, which the plan is remembered by (see countAhead).
 * `newest`: the newest complete trace's start. `hints`: what the page read from the top of the lists
 * shows; a range open at its end is then counted to the end of this minute rather than to the newest
 * complete trace's start, which the page shows (looked up only when the page holds nothing but pending
 * traces and there are more), as it shows the pending traces when it read them all. Should the newest
 * complete trace start later (a client's clock ahead), or the range grow past MAX_COUNTED_DAYS, the
 * total is counted again the usual way.
 */
async function traceTotal(
  deps: { store: ReadStore<'traces' | 'rollups' | 'tenants'>; clock: Clock },
  tenantId: string,
  q: TraceQuery & { startMs: number },
  counting: Awaited<ReturnType<typeof rollupCounting>>,
  early: {
    asked: TraceQuery;
    hints?: Promise<PageHints> | undefined;
    newest?: Promise<number | undefined> | undefined;
    ahead?: CountAhead | undefined;
  },
): Promise<Total> {
  const fromPage = early.hints;
  const { traces } = deps.store;
  const hinted = fromPage !== undefined && q.endMs === undefined;
  const thisMinuteEnd = bucketStart(deps.clock.now().getTime(), 'minute') + BUCKET_MS.minute - 1;
  const usualWay = () => traceTotal(deps, tenantId, q, counting, { asked: early.asked });
  const { endMs } = q;
  if (
    endMs !== undefined &&
    endMs > thisMinuteEnd &&
    q.startMs <= thisMinuteEnd &&
    endMs - q.startMs > MAX_COUNTED_DAYS * BUCKET_MS.day &&
    thisMinuteEnd - q.startMs <= MAX_COUNTED_DAYS * BUCKET_MS.day
  ) {
    // A range that runs far into the future (`endDate=2099-12-31` for "no end"), too long for the
    // rollups: they count it to the end of this minute, and what starts later (a client's clock
    // ahead, rarely much) is counted in its lists, exact while they hold few.
    const [present, later] = await Promise.all([
      traceTotal(deps, tenantId, { ...q, endMs: thisMinuteEnd }, counting, { asked: early.asked, ahead: early.ahead }),
      traces.count(tenantId, { ...q, startMs: thisMinuteEnd + 1 }),
    ]);
    return { count: present.count + later.count, exact: present.exact && later.exact };
  }
  // The newest finished trace: what the page shows, looked up as soon as the page shows only pending traces and there are more.
  const newestFinished = hinted
    ? fromPage.then((hints) => (hints.newestComplete === 'unknown' ? traces.completeStart(tenantId, q, 'newest') : hints.newestComplete))
    : undefined;
  newestFinished?.catch(() => undefined); // awaited below, unless a read of the next round fails first
  const countPending = () => traces.count(tenantId, q, ['pending']);
  const pending = fromPage ? fromPage.then((hints) => hints.pending ?? countPending()) : countPending();
  pending.catch(() => undefined); // awaited below, unless a read of the next round fails first
  const { retentionDays, dirtyHours, recomputes } = counting;
  const from = q.startMs;
  const newest = q.endMs ?? (hinted ? thisMinuteEnd : await (early.newest ?? traces.completeStart(tenantId, q, 'newest')));
  if (newest === undefined) return pending;
  const to = q.endMs ?? bucketStart(newest, 'minute') + BUCKET_MS.minute - 1;
  if (to < from) return pending;
  const wholeFrom = Math.ceil(from / BUCKET_MS.minute) * BUCKET_MS.minute;
  const wholeTo = bucketStart(to + 1, 'minute');
  if (wholeTo - wholeFrom > MAX_COUNTED_DAYS * BUCKET_MS.day) return hinted ? usualWay() : traces.count(tenantId, q);
  const complete = ['ok', 'error'] as const;
  const parts: Array<Promise<Total>> = [pending];
  if (wholeFrom >= wholeTo) {
    parts.push(traces.count(tenantId, { ...q, startMs: from, endMs: to }, complete));
  } else {
    const plan: CountPlan = {
      scope: q.agentId ?? ALL_AGENTS,
      startMs: wholeFrom,
      endMs: wholeTo,
      ...(q.status ? { status: q.status } : {}),
      leaveOut: q.excludeAgents ?? [],
      settled: settledWindow(deps.clock.now().getTime(), retentionDays),
      dirtyHours,
      recomputes,
      toThisMinute: hinted,
    };
    const finished = early.ahead && samePlan(early.ahead.plan, plan) ? early.ahead.count : countByPlan(deps, tenantId, plan);
    rememberPlan(tenantId, early.asked, plan);
    parts.push(finished.then((count) => ({ count, exact: true })));
    if (from < wholeFrom) parts.push(traces.count(tenantId, { ...q, startMs: from, endMs: wholeFrom - 1 }, complete));
    if (wholeTo <= to) parts.push(traces.count(tenantId, { ...q, startMs: wholeTo, endMs: to }, complete));
  }
  const totals = await Promise.all(parts);
  const newestSeen = await newestFinished;
  if (newestSeen !== undefined && newestSeen > thisMinuteEnd) return usualWay();
  return { count: totals.reduce((sum, t) => sum + t.count, 0), exact: totals.every((t) => t.exact) };
}

/**
 * A session's traces (its contributions hold their summaries), a page in start order; the total is
 * the session's trace count when nothing else narrows it, inexact while a large session's refresh is queued.
 */
async function sessionTraces(store: ReadStore<'sessions'>, tenantId: string, sessionId: string, q: TraceListQuery, page: PageInput, order: Order) {
  const filters = traceFilters(q);
  const narrowed = Object.entries(filters).some(([, v]) => v !== undefined);
  const [result, total, session] = await Promise.all([
    store.sessions.tracesPage(tenantId, sessionId, filters, page, order),
    narrowed ? store.sessions.countTraces(tenantId, sessionId, filters) : undefined,
    narrowed ? undefined : store.sessions.get(tenantId, sessionId),
  ]);
  const count = total ?? (session ? sessionTraceTotal(session) : { count: 0, exact: true });
  return { ...result, items: result.items.map(traceView), total: count.count, totalExact: count.exact };
}

/**
 * How much of the Lambda response payload (6 MB, the answer's JSON body as one JSON string in it)
 * one answer of a trace may take: its spans past this are the next page's. Only a trace of thousands
 * of spans, or of hundreds with long inputs and outputs, takes more than one.
 */
export const TRACE_ANSWER_BYTES = 5 * 1024 * 1024;
/** What the trace's logs, and its signals, may each take of the first answer, at most: the spans need the rest. */
const TRACE_TIMELINE_BYTES = TRACE_ANSWER_BYTES / 4;

/** What a value adds to the Lambda payload: its JSON, escaped again as part of the body's string. */
const payloadBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;

/** As many of the items, in order, as fit in `budget` bytes (at least `least`), and the bytes they take. */
function fitting<T>(items: readonly T[], budget: number, least: number): { fit: T[]; bytes: number } {
  let bytes = 0;
  const fit: T[] = [];
  for (const item of items) {
    const size = payloadBytes(item) + 1;
    if (fit.length >= least && bytes + size > budget) break;
    fit.push(item);
    bytes += size;
  }
  return { fit, bytes };
}

/**
 * A trace with its spans in tree order, its signals, logs and anomalies. Its spans come as much as fits
 * in one answer (TRACE_ANSWER_BYTES): past that, `nextSpans` is the last span given, from which the
 * next page (`afterSpan`) goes on, and the later pages carry only spans. The trace's logs and its
 * signals take at most a quarter of the first answer each; `logsLeftOut` and `signalsLeftOut` say how
 * many did not fit (`GET /logs?traceId=` and `GET /signals?traceId=` list them all).
 */
export async function getTrace(store: ReadStore<'traces'>, tenantId: string, traceId: string, afterSpan?: string) {
  const { summary, spans, signals, logs, anomalies } = await store.traces.readTrace(tenantId, traceId);
  if (!summary) throw new NotFoundError('Trace');
  const ordered = orderSpans(spans);
  let from = 0;
  if (afterSpan !== undefined) {
    from = ordered.findIndex(({ span }) => span.spanId === afterSpan) + 1;
    if (from === 0) throw new ValidationError('Invalid query: cursor: the trace no longer has the span it continues from; read the trace again');
  }
  const first = from === 0;
  const none = { fit: [], bytes: 0 };
  const signalsFit = first ? fitting(signals.map(signalView), TRACE_TIMELINE_BYTES, 0) : none;
  const logsFit = first ? fitting(logs.map(logView), TRACE_TIMELINE_BYTES, 0) : none;
  const head = { ...traceView(summary), anomalies: anomalies?.anomalies ?? [] };
  const budget = TRACE_ANSWER_BYTES - payloadBytes(head) - signalsFit.bytes - logsFit.bytes;
  const page = fitting(
    ordered.slice(from).map(({ span, depth }) => spanView(span, depth)),
    budget,
    1,
  );
  const last = from + page.fit.length;
  return {
    trace: {
      ...head,
      spans: page.fit,
      signals: signalsFit.fit,
      signalsLeftOut: first ? signals.length - signalsFit.fit.length : 0,
      logs: logsFit.fit,
      logsLeftOut: first ? logs.length - logsFit.fit.length : 0,
    },
    nextSpans: last < ordered.length ? page.fit.at(-1)!.spanId : undefined,
  };
}

/** The agents `GET /spans/filters` lists at most (in name order). */
const FILTER_AGENTS = 1000;

export async function filterOptions(store: ReadStore<'agents' | 'traces'>, tenantId: string) {
  const [facets, agents] = await Promise.all([store.traces.facets(tenantId), store.agents.page(tenantId, { limit: FILTER_AGENTS, skip: 0 })]);
  return {
    agents: agents.items.map((a) => ({ id: a.id, name: a.name })),
    models: facets.models,
    statuses: facets.statuses,
    spanKinds: facets.kinds,
    toolNames: facets.toolNames,
    errorTypes: facets.errorTypes,
    traceNames: facets.traceNames,
    tags: facets.tags,
    signalNames: facets.signalNames,
  };
}

export async function listSignals(store: ReadStore<'agents' | 'signals'>, tenantId: string, q: z.infer<typeof signalListQuery>, page: PageInput) {
  await assertAgent(store, tenantId, q.agentId);
  const query = { agentId: q.agentId, traceId: q.traceId, startMs: ms(q.startDate), endMs: ms(q.endDate), signalName: q.signalName };
  const [result, total] = await Promise.all([store.signals.page(tenantId, query, page), store.signals.count(tenantId, query)]);
  return { ...result, items: result.items.map(signalView), total: total.count, totalExact: total.exact };
}

export async function signalsOfTrace(store: ReadStore<'signals' | 'traces'>, tenantId: string, traceId: string) {
  const signals = await store.signals.list(tenantId, { traceId });
  if (signals.length === 0 && !(await store.traces.getSummary(tenantId, traceId))) throw new NotFoundError('Trace');
  return signals.map(signalView);
}

export async function signalSummary(store: ReadStore<'agents' | 'signals'>, tenantId: string, q: z.infer<typeof signalSummaryQuery>, now: Date) {
  await assertAgent(store, tenantId, q.agentId);
  const end = q.endDate ?? now;
  const start = q.startDate ?? new Date(daysBefore(end.getTime(), DEFAULT_SUMMARY_DAYS));
  const signals = await store.signals.list(tenantId, { agentId: q.agentId, startMs: start.getTime(), endMs: end.getTime(), signalName: q.signalName });
  return { startDate: start.toISOString(), endDate: end.toISOString(), groups: summarizeSignals(signals) };
}

export async function listLogs(store: ReadStore<'agents' | 'logs'>, tenantId: string, q: z.infer<typeof logListQuery>, page: PageInput) {
  await assertAgent(store, tenantId, q.agentId);
  const query = { agentId: q.agentId, traceId: q.traceId, startMs: ms(q.startDate), endMs: ms(q.endDate), level: q.level, eventName: q.eventName };
  const [result, total] = await Promise.all([store.logs.page(tenantId, query, page), store.logs.count(tenantId, query)]);
  return { ...result, items: result.items.map(logView), total: total.count, totalExact: total.exact };
}
