import type { Order, PageInput, ReadPage, Total } from '../paging/page.ts';
import type { StoredTraceSummary, TraceFreeFilters } from '../spans/ports.ts';
import type { TraceStatus, TraceSummary } from '../spans/summary.ts';
import type { SessionFigures } from './sessions.ts';

/** A session's figures as stored, with the version its optimistic updates check. */
export interface SessionRecord extends SessionFigures {
  version: number;
}

/**
 * A session's figures, with when the refresh queued for a large session is due (its note's
 * `dueAtMs`, absent when none is queued): until it runs, the traces stored since its figures were
 * computed are listed but not counted.
 */
export interface StoredSession extends SessionRecord {
  refreshDueAtMs?: number;
}

/** The session filters of a list: its agent or user, when it started. */
export interface SessionQuery {
  agentId?: string;
  userId?: string;
  startMs?: number;
  endMs?: number;
}

/** Which of a session's traces a page shows: by agent, status, start time and the trace list's free filters. */
export interface SessionTraceQuery extends TraceFreeFilters {
  agentId?: string;
  status?: TraceStatus;
  startMs?: number;
  endMs?: number;
}

/** A trace's summary as its worker computed it, with the revision it was written at, for its session's copy. */
export interface SessionTrace {
  summary: TraceSummary & { sessionId: string };
  revision: number;
  /** The start of the summary this one replaced in the same session, when it differs: the copy at that start is stale. */
  replacedStartMs?: number;
}

/** A session too large for a worker to recompute with each trace it stores (see `LARGE_SESSION_TRACES`). */
export interface LargeSession {
  sessionId: string;
  traceCount: number;
  /** When the refresh queued for it is due; null when none is. */
  refreshDueAtMs: number | null;
}

/**
 * Sessions, maintained at ingestion: each trace that names a session contributes a copy of its
 * summary, and the session's figures are recomputed from its contributions.
 */
export interface SessionsRepository {
  /**
   * The traces' contributions to their sessions, copies of their summaries, written after the
   * summaries: a copy that is not its summary as stored once written is written again from the
   * summary (over a copy that is there), the summary's alert marks are added to it, and the copy of
   * a trace whose summary is gone or being deleted, or names another session (or none), is deleted,
   * as is the copy at a `replacedStartMs` (unless it is newer). Answers the sessions of the traces
   * given a `replacedStartMs` (whoever deleted that copy).
   */
  putTraces(tenantId: string, traces: readonly SessionTrace[], expiresAt: number): Promise<ReadonlySet<string>>;
  /**
   * Recomputes the sessions' figures (and their listings) from their traces; concurrency-safe,
   * idempotent. A session whose figures count more than `LARGE_SESSION_TRACES` traces is not
   * recomputed: it is answered, with the refresh queued for it if any, for a refresh of its own. The
   * `rewrite` sessions' figures are written even when unchanged: a copy at a trace's old start went
   * in them, which a recount running meanwhile may have missed the trace through.
   */
  refresh(tenantId: string, sessionIds: readonly string[], rewrite?: ReadonlySet<string>): Promise<LargeSession[]>;
  /**
   * Notes that a refresh of each session is queued, due at `dueAtMs`: the workers that store its
   * traces until then leave them to it. Written after the refresh's message is sent; a note of a
   * refresh due later stays.
   */
  noteRefreshQueued(tenantId: string, refreshes: ReadonlyArray<{ sessionId: string; dueAtMs: number }>): Promise<void>;
  /**
   * The refresh of a large session queued to run at `dueAtMs`: takes off its note first (unless it is
   * the note of a refresh due later), so that a worker that stores a trace after the read below
   * queues another, then recomputes the figures from all of its traces.
   */
  refreshQueued(tenantId: string, sessionId: string, dueAtMs: number): Promise<void>;
  /**
   * Takes traces out of a session, every copy of each, with one whole read of the session (which goes
   * when it has no trace left): traces being deleted, or one on its way to another session.
   */
  removeTraces(tenantId: string, sessionId: string, traceIds: readonly string[]): Promise<void>;
  /**
   * Takes a trace that moved to another session out of the one it left, after the summary that moved
   * it was written. When the trace has moved back meanwhile (its summary names this session again),
   * the copy its mover wrote may have gone with it, and is written again from the summary.
   */
  removeMovedTrace(tenantId: string, sessionId: string, traceId: string): Promise<void>;
  get(tenantId: string, sessionId: string): Promise<StoredSession | undefined>;
  /** One page of sessions, most recently started first, with their figures. */
  page(tenantId: string, q: SessionQuery, page: PageInput): Promise<ReadPage<SessionRecord>>;
  count(tenantId: string, q: SessionQuery): Promise<Total>;
  /** One page of a session's traces (their summaries), in start order. */
  tracesPage(tenantId: string, sessionId: string, q: SessionTraceQuery, page: PageInput, order: Order): Promise<ReadPage<StoredTraceSummary>>;
  countTraces(tenantId: string, sessionId: string, q: SessionTraceQuery): Promise<Total>;
}
