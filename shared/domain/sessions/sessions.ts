import { truncateText } from '../ingest/messages.ts';
import type { Total } from '../paging/page.ts';
import { roundCost } from '../pricing/estimate.ts';
import { storableSum } from '../spans/model.ts';
import type { StoredSpan, TraceSummary } from '../spans/summary.ts';

/**
 * A session is a conversation: the traces that name the same `sessionId` (OTLP `gen_ai.conversation.id`).
 * Its figures are recomputed from its traces' latest summaries whenever one changes, so they are the
 * same whatever order the traces arrive in and however often a message is processed.
 */
export interface SessionFigures {
  sessionId: string;
  /** The agent and user of its earliest trace that names one. */
  agentId: string | null;
  agentName: string | null;
  userId: string | null;
  firstSeenMs: number;
  /** When its latest trace ended (or started, when it has not ended). */
  lastSeenMs: number;
  traceCount: number;
  /** Traces in error. */
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
  /** From its first trace's start to its last trace's end. */
  durationMs: number;
}

/** What a session is listed under: a change of these moves its index entry. */
export interface SessionListing {
  firstSeenMs: number;
  agentId: string | null;
  userId: string | null;
}

/** What a session's figures are computed from: the fields they read of each trace's summary. */
export type SessionTraceFigures = Pick<
  TraceSummary,
  'traceId' | 'startTimeMs' | 'endTimeMs' | 'agentId' | 'agentName' | 'userId' | 'status' | 'inputTokens' | 'outputTokens' | 'cost'
>;

/** Whether trace `a` comes before `b` in a session: by start, then by id (the order its copies are kept in). */
const before = (a: SessionTraceFigures, b: SessionTraceFigures) => a.startTimeMs < b.startTimeMs || (a.startTimeMs === b.startTimeMs && a.traceId < b.traceId);

/**
 * A session's figures taken one trace at a time, in any order, holding only the figures so far: a
 * session's recount reads its traces page by page, whatever its size. `result` is undefined until a
 * trace was added.
 */
export function sessionFiguresFold(sessionId: string) {
  let first: SessionTraceFigures | undefined;
  let withAgent: SessionTraceFigures | undefined;
  let withUser: SessionTraceFigures | undefined;
  let lastSeenMs = Number.NEGATIVE_INFINITY;
  let traceCount = 0;
  let errorCount = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  return {
    add(trace: SessionTraceFigures): void {
      if (!first || before(trace, first)) first = trace;
      if (trace.agentId !== null && (!withAgent || before(trace, withAgent))) withAgent = trace;
      if (trace.userId !== null && (!withUser || before(trace, withUser))) withUser = trace;
      lastSeenMs = Math.max(lastSeenMs, trace.endTimeMs ?? trace.startTimeMs);
      traceCount++;
      if (trace.status === 'error') errorCount++;
      inputTokens += trace.inputTokens;
      outputTokens += trace.outputTokens;
      cost += trace.cost;
    },
    result(): SessionFigures | undefined {
      if (!first) return undefined;
      return {
        sessionId,
        agentId: withAgent?.agentId ?? null,
        agentName: withAgent?.agentName ?? null,
        userId: withUser?.userId ?? null,
        firstSeenMs: first.startTimeMs,
        lastSeenMs,
        traceCount,
        errorCount,
        inputTokens: storableSum(inputTokens),
        outputTokens: storableSum(outputTokens),
        totalTokens: storableSum(inputTokens + outputTokens),
        cost: storableSum(roundCost(cost)),
        durationMs: lastSeenMs - first.startTimeMs,
      };
    },
  };
}

export function sessionFigures(sessionId: string, traces: readonly SessionTraceFigures[]): SessionFigures {
  const fold = sessionFiguresFold(sessionId);
  // In session order, as a recount reads them (but for traces it finds with two copies, added last), so that the cost is summed in the same order.
  for (const trace of [...traces].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))) fold.add(trace);
  const figures = fold.result();
  if (!figures) throw new Error('a session needs at least one trace');
  return figures;
}

/**
 * Past this many traces, a session's figures are no longer recomputed by the worker that stores one of
 * its traces (which would read all of them for each new one: O(n) per trace, O(n²) over the session's
 * life), but by a refresh queued with a delay (`refreshDelaySeconds`), which recomputes them once for
 * every trace stored until it reads them (a trace stored after its read queues the next).
 */
export const LARGE_SESSION_TRACES = 100;

const MIN_REFRESH_DELAY_SECONDS = 10;
/** SQS's longest delay. */
const MAX_REFRESH_DELAY_SECONDS = 900;
/** Traces a large session's refresh reads per second of delay: the delay grows with the session, so its refreshes read about this many items a second, up to 90,000 traces. */
const REFRESH_TRACES_PER_SECOND = 100;

/** How long after a trace of a large session was stored its figures are recomputed: from 10 s (up to 1,000 traces) to 15 minutes (90,000 traces and more). */
export const refreshDelaySeconds = (traceCount: number) =>
  Math.min(MAX_REFRESH_DELAY_SECONDS, Math.max(MIN_REFRESH_DELAY_SECONDS, Math.ceil(traceCount / REFRESH_TRACES_PER_SECOND)));

/**
 * A refresh's note counts only until this long before the refresh is due. The refresh cannot run
 * before its due time (the worker takes the time before it sends, and SQS delays from the send), so
 * a note its worker wrote late, after the refresh had run, counts for no one; this much is left for
 * the clocks of two hosts to differ.
 */
export const NOTE_CLOCK_MARGIN_MS = 1000;

/** Whether a refresh noted as due at `dueAtMs` is still to come at `nowMs`. */
export const refreshComing = (dueAtMs: number | null, nowMs: number) => dueAtMs !== null && nowMs + NOTE_CLOCK_MARGIN_MS < dueAtMs;

/**
 * How long past its due time a refresh's note is still told to readers (`figuresRefreshDueAt`): as
 * long as its message can still be received (the ingest queue's 180 s visibility timeout times its 5
 * receives, checked against the catalog in the tests), so a refresh that failed before it took the
 * note off is still told. A note older than that is most likely of a refresh that already ran (a
 * note written late) or that went to the dead-letter queue; a backlog of over 15 minutes is told as
 * none coming too.
 */
export const REFRESH_OVERDUE_AFTER_MS = 5 * 180_000;

/** The due time a reader is told for a refresh noted as due at `dueAtMs`, or null (none, or none still coming). */
export const recountDue = (dueAtMs: number | undefined, nowMs: number): number | null =>
  dueAtMs !== undefined && nowMs <= dueAtMs + REFRESH_OVERDUE_AFTER_MS ? dueAtMs : null;

/**
 * A session's trace count as the total of a list of its traces: exact unless a refresh is queued, in
 * which case the traces stored since its figures were computed are listed but not yet counted.
 */
export const sessionTraceTotal = (session: SessionFigures & { refreshDueAtMs?: number }): Total => ({
  count: session.traceCount,
  exact: session.refreshDueAtMs === undefined,
});

export const listingOf = (f: SessionFigures): SessionListing => ({ firstSeenMs: f.firstSeenMs, agentId: f.agentId, userId: f.userId });

const iso = (ms: number) => new Date(ms).toISOString();

export function sessionView(f: SessionFigures) {
  return {
    sessionId: f.sessionId,
    agentId: f.agentId,
    agentName: f.agentName,
    userId: f.userId,
    firstSeenAt: iso(f.firstSeenMs),
    lastSeenAt: iso(f.lastSeenMs),
    traceCount: f.traceCount,
    errorCount: f.errorCount,
    inputTokens: f.inputTokens,
    outputTokens: f.outputTokens,
    totalTokens: f.totalTokens,
    cost: f.cost,
    durationMs: f.durationMs,
  };
}

/** A session's view shows each trace's input and output this long at most; the trace itself has them whole. */
export const SESSION_TEXT_CHARS = 4096;

/**
 * What a trace was asked and answered: its root span's input and output; without a root (or when the
 * root has none), the earliest span's input and the last-ending span's output that have one.
 */
export function traceConversation(spans: readonly StoredSpan[]): { input: string | null; output: string | null } {
  const byStart = [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs);
  const root = byStart.find((s) => s.parentSpanId === null);
  const byEnd = [...spans].sort((a, b) => (b.endTimeMs ?? b.startTimeMs) - (a.endTimeMs ?? a.startTimeMs));
  const input = root?.input ?? byStart.find((s) => s.input !== null)?.input ?? null;
  const output = root?.output ?? byEnd.find((s) => s.output !== null)?.output ?? null;
  return { input: truncateText(input, SESSION_TEXT_CHARS), output: truncateText(output, SESSION_TEXT_CHARS) };
}
