import type { PageInput, ReadPage, Total } from '../paging/page.ts';
import type { TraceAnomalies } from '../profiles/ports.ts';
import type { AttributeValue } from './model.ts';
import type { StoredSpan, TraceStatus, TraceSummary } from './summary.ts';

export interface Facets {
  models: string[];
  kinds: string[];
  toolNames: string[];
  errorTypes: string[];
  traceNames: string[];
  tags: string[];
  statuses: string[];
  signalNames: string[];
}

/** A stored span and when the write that holds it was made (of two copies of a span, the later write wins). */
export type StoredSpanWrite = StoredSpan & { writtenAtMs: number };

/** A summary as stored: with the types of the alerts raised on the trace, which the judge may add after the summary was written. */
export type StoredTraceSummary = TraceSummary & { alertTypes?: ReadonlySet<string> };

/** A stored summary and what it was computed from (`spanGroups` and `version` are absent on summaries written without a basis). */
export interface StoredSummary {
  summary: TraceSummary;
  revision: number;
  /** The span groups the summary was computed from. */
  spanGroups?: string[];
  /** The bytes of input, output and attributes its spans hold (see TRACE_CONTENT_BYTES); written since 2026-11-30. */
  contentBytes?: number;
  /** Changes with every write that has a basis (see `putSummary`) and when the trace is closed. */
  version?: string;
  /** When the trace's items expire (epoch seconds). */
  expiresAt: number;
  /**
   * The moves out of a session whose last removal is not done yet (see `recordSessions`). Should the
   * mover fail first, the next to store the trace's sessions finishes it: the mover's retry, a worker
   * storing more of the trace's spans, the closing of a pending trace, the re-index's walk, the agent
   * purge.
   */
  movesLeft?: SessionMove[];
  /** The trace is being deleted (see `markDeleting`). */
  deleting?: true;
}

/**
 * A summary write's move of its trace out of a session, until the trace's last removal from that
 * session is done. Each move has its own id, so that of two movers out of one session (the trace moved
 * back in between), the one that finishes first does not take the other's mark with its own. Marks
 * written before moves had ids (2026-11-29) have none: `moveId` null.
 */
export interface SessionMove {
  sessionId: string;
  moveId: string | null;
}
/** A move a summary write makes: one with an id (from `Ids`, so without spaces). */
export type NewMove = SessionMove & { moveId: string };

/** What a summary was computed from, and the stored summary it replaces (undefined: none is stored). */
export interface SummaryBasis {
  spanGroups: readonly string[];
  contentBytes: number;
  replaces: StoredSummary | undefined;
}

/**
 * Where a trace summary is listed: complete and closed traces by status, the others (root missing or
 * not ended, and spans still arriving) apart, as `pending`.
 */
export const TRACE_STATES = ['ok', 'error', 'pending'] as const;
export type TraceState = (typeof TRACE_STATES)[number];

/** A summary stored before traces were closed has no `closedAtMs`: it was never closed. */
export const traceState = (summary: Pick<TraceSummary, 'complete' | 'status'> & { closedAtMs?: number | null }): TraceState =>
  summary.complete || (summary.closedAtMs ?? null) !== null ? summary.status : 'pending';

/** A pending trace to look at once `dueAtMs` has passed: closed if no span arrived for TRACE_QUIET_MS, else looked at again later. */
export interface CloseMarker {
  tenantId: string;
  traceId: string;
  dueAtMs: number;
  /** The trace's expiry when the marker was written (epoch seconds): the marker goes with the trace. */
  expiresAt: number;
}

/** The trace filters DynamoDB applies after reading (no index orders traces by them): pages that use them read within a budget. */
export interface TraceFreeFilters {
  model?: string;
  toolName?: string;
  errorType?: string;
  name?: string;
  tag?: string;
  /** A metadata key and the value (as text) it must hold. */
  metadata?: { key: string; value: string };
  minDurationMs?: number;
  maxDurationMs?: number;
  minCost?: number;
  minTokens?: number;
  hasAlert?: boolean;
}

/** What narrows a trace list: the key conditions (agent or user, status, start time) and the free filters. */
export interface TraceQuery extends TraceFreeFilters {
  agentId?: string;
  userId?: string;
  status?: TraceStatus;
  startMs?: number;
  endMs?: number;
  /** Agents deleted lately, whose traces the purge may not have reached yet: left out of tenant-wide lists. */
  excludeAgents?: readonly string[];
}

export const hasFreeFilters = (q: TraceFreeFilters): boolean =>
  [q.model, q.toolName, q.errorType, q.name, q.tag, q.metadata, q.minDurationMs, q.maxDurationMs, q.minCost, q.minTokens, q.hasAlert].some(
    (v) => v !== undefined,
  );

/** Everything stored for one trace, read in one query. */
export interface TraceContents {
  summary: TraceSummary | undefined;
  spans: StoredSpanWrite[];
  signals: StoredSignal[];
  logs: StoredLog[];
  anomalies: TraceAnomalies | undefined;
}

export interface TracesRepository {
  /** Idempotent: a redelivered message writes the same spans again. */
  putSpans(tenantId: string, spans: readonly StoredSpan[], expiresAt: number, writtenAtMs: number): Promise<void>;
  /** `putSpans` of several messages' spans (each with its expiry) in one go. */
  putSpansOfMessages(tenantId: string, messages: ReadonlyArray<{ spans: readonly StoredSpan[]; expiresAt: number }>, writtenAtMs: number): Promise<void>;
  spansOf(tenantId: string, traceId: string, consistent?: boolean): Promise<StoredSpanWrite[]>;
  /** Every span group of a trace: their ids and spans. */
  spanGroupsOfTrace(tenantId: string, traceId: string, consistent?: boolean): Promise<{ groupIds: string[]; spans: StoredSpanWrite[] }>;
  /** The spans of these span groups, by trace id (strongly consistent reads, grouped). */
  spansOfGroups(tenantId: string, groups: ReadonlyArray<{ traceId: string; groupId: string }>): Promise<Map<string, StoredSpanWrite[]>>;
  /** The stored summaries of these traces, by trace id (strongly consistent reads, grouped). */
  summaries(tenantId: string, traceIds: readonly string[]): Promise<Map<string, StoredSummary>>;
  /** These traces as lists show them (with their alert marks), by trace id; a trace deleted or expired is not there. */
  listed(tenantId: string, traceIds: readonly string[]): Promise<Map<string, StoredTraceSummary>>;
  /**
   * Writes the summary unless a newer one is there: `revision` is the latest span write it saw (or
   * one past the revision of the summary it replaces, when that is later), so a worker that read
   * fewer spans cannot overwrite a more complete summary; the alert marks stay.
   * With `mustExist`, only over a stored summary (a rewrite must not bring back a deleted trace).
   * A summary that becomes pending (written pending over none, or without a basis) gets its close
   * marker, due TRACE_QUIET_MS after `revision`, written first. `leaving`: the summary's move out of
   * a session, added to its `movesLeft` in the same write. An update: what the item
   * holds besides the summary (the alert marks, `movesLeft`, `deleting`) stays.
   */
  putSummary(
    tenantId: string,
    summary: TraceSummary,
    revision: number,
    expiresAt: number,
    options?: { mustExist?: boolean; basis?: SummaryBasis; leaving?: NewMove | null },
  ): Promise<boolean>;
  /** Takes the move off the summary's `movesLeft`: the trace's last removal from its session is done. Nothing when the summary is gone. */
  forgetMove(tenantId: string, traceId: string, left: SessionMove): Promise<void>;
  getSummary(tenantId: string, traceId: string): Promise<StoredTraceSummary | undefined>;
  /**
   * Notes on the trace's summary, and on its contribution to its session, that an alert of this
   * type was raised on it (a set: the same type twice is one mark); nothing when the summary is gone.
   */
  markAlerted(tenantId: string, traceId: string, alertType: string): Promise<void>;
  /** Everything stored for one trace (summary, spans, signals, logs, anomalies) in one query. */
  readTrace(tenantId: string, traceId: string): Promise<TraceContents>;
  /**
   * One page of matching summaries, newest first (by start time); with `count`, and how many match;
   * `pendingCount`: how many pending traces match, when the page was read from the start of the lists and read theirs to the end.
   */
  page(tenantId: string, q: TraceQuery, page: PageInput, options?: { count?: boolean }): Promise<ReadPage<StoredTraceSummary> & { pendingCount?: number }>;
  /** How many summaries match, counted within a budget; `states` narrows it to some lists (e.g. the pending ones). */
  count(tenantId: string, q: TraceQuery, states?: readonly TraceState[]): Promise<Total>;
  /** The start time of the oldest or the newest complete trace the query's lists hold, or undefined when they hold none. */
  completeStart(tenantId: string, q: TraceQuery, end: 'oldest' | 'newest'): Promise<number | undefined>;
  /** Up to `limit` of an agent's complete summaries that started in [startMs, endMs), newest first: one page, for sampling. */
  newestOfAgent(tenantId: string, agentId: string, startMs: number, endMs: number, limit: number): Promise<TraceSummary[]>;
  /** When the agent's newest trace started, or undefined when it has none. */
  latestStartOfAgent(tenantId: string, agentId: string): Promise<number | undefined>;
  /** Up to `limit` of an agent's traces (id and session), for purging it page by page. */
  tracesOfAgent(tenantId: string, agentId: string, limit: number): Promise<Array<Pick<TraceSummary, 'traceId' | 'sessionId' | 'startTimeMs'>>>;
  /**
   * Marks the trace's summary as being deleted (`deleting`: a session copy checked against it from
   * then on is deleted, see `SessionsRepository.putTraces`), and answers the sessions it names: the
   * one the trace is in and those it is leaving (`movesLeft`). Undefined when the summary is gone.
   */
  markDeleting(tenantId: string, traceId: string): Promise<string[] | undefined>;
  /**
   * Deletes the trace's items, its summary last, so that a delete stopped midway finds the trace
   * again by its summary. The purge calls it after `markDeleting` and the session removals.
   */
  deleteTrace(tenantId: string, traceId: string): Promise<void>;
  /**
   * Closes a pending trace as `stored` read it: sets `closedAtMs`, lists it by its status and gives it
   * a new version (a worker that read it pending must read it again); the rest of the item stays.
   * Answers the closed summary, or undefined when the stored one changed meanwhile (or is gone).
   */
  closeSummary(tenantId: string, stored: StoredSummary, closedAtMs: number): Promise<StoredSummary | undefined>;
  /** Up to `limit` close markers due by `nowMs` from each of the markers' partitions, oldest first in each. */
  dueToClose(nowMs: number, limit: number): Promise<CloseMarker[]>;
  /** Moves a marker to a later due time (written before the old one is deleted). */
  rescheduleClose(marker: CloseMarker, dueAtMs: number): Promise<void>;
  forgetClose(marker: CloseMarker): Promise<void>;
  addFacets(tenantId: string, facets: Partial<Facets>): Promise<void>;
  facets(tenantId: string): Promise<Facets>;
}

/** What signals and logs share: a time, an optional trace and span, an optional agent. */
export interface TimelineEntry {
  id: string;
  timestampMs: number;
  traceId: string | null;
  spanId: string | null;
  agentId: string | null;
  agentName: string | null;
}

/** What narrows a list of signals or logs: a trace, an agent, a time range, and the signal name or log level. */
export interface TimelineQuery {
  agentId?: string;
  traceId?: string;
  startMs?: number;
  endMs?: number;
  /** Logs: a level (each level has its lists). */
  level?: string;
  /** Logs: an OpenTelemetry event name (a filter within the lists read). */
  eventName?: string;
  /** Signals: a name (the tenant's signals of a name have a list of their own). */
  signalName?: string;
}

export interface StoredSignal extends TimelineEntry {
  signalName: string;
  value: number;
  metadata: Record<string, AttributeValue>;
  timestamp: string;
}

export interface StoredLog extends TimelineEntry {
  level: string;
  message: string;
  /** The OpenTelemetry event name; absent on logs stored before event names were kept. */
  eventName?: string | null;
  attributes: Record<string, AttributeValue>;
  timestamp: string;
}

/**
 * Signals or logs: kept with their trace when they name one (so a trace reads in one query), listed
 * by tenant or agent in time order.
 */
export interface TimelineRepository<T extends TimelineEntry> {
  put(tenantId: string, entries: readonly T[], expiresAt: number): Promise<void>;
  /** Deletes up to `limit` entries of an agent; answers how many it deleted. */
  deleteOfAgent(tenantId: string, agentId: string, limit: number): Promise<number>;
  /** One page, newest first. */
  page(tenantId: string, q: TimelineQuery, page: PageInput): Promise<ReadPage<T>>;
  count(tenantId: string, q: TimelineQuery): Promise<Total>;
  /** Every entry of a trace, or of a time range (the signal summary aggregates them), newest first. */
  list(tenantId: string, q: TimelineQuery): Promise<T[]>;
}
export type SignalsRepository = TimelineRepository<StoredSignal>;
export type LogsRepository = TimelineRepository<StoredLog>;
