import type { TraceAnomalies } from '../profiles/ports.ts';
import type { AttributeValue } from './model.ts';
import type { StoredSpan, TraceSummary } from './summary.ts';

export interface TraceFilter {
  agentId?: string;
  startMs?: number;
  endMs?: number;
  status?: 'ok' | 'error';
  model?: string;
  sessionId?: string;
}

export interface Facets {
  models: string[];
  kinds: string[];
  toolNames: string[];
  statuses: string[];
  signalNames: string[];
}

/** A stored span and when the write that holds it was made (of two copies of a span, the later write wins). */
export type StoredSpanWrite = StoredSpan & { writtenAtMs: number };

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
  spansOf(tenantId: string, traceId: string): Promise<StoredSpanWrite[]>;
  /**
   * Writes the summary unless a newer one is there: `revision` is the latest span write it saw,
   * so a worker that read fewer spans cannot overwrite a more complete summary.
   */
  putSummary(tenantId: string, summary: TraceSummary, revision: number, expiresAt: number): Promise<boolean>;
  getSummary(tenantId: string, traceId: string): Promise<TraceSummary | undefined>;
  /** Everything stored for one trace (summary, spans, signals, logs, anomalies) in one query. */
  readTrace(tenantId: string, traceId: string): Promise<TraceContents>;
  /** Matching summaries, newest first: of one agent, or of the whole tenant. */
  listSummaries(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]>;
  /** Up to `limit` of an agent's summaries that started in [startMs, endMs), newest first: one page, for sampling. */
  newestOfAgent(tenantId: string, agentId: string, startMs: number, endMs: number, limit: number): Promise<TraceSummary[]>;
  /** When the agent's newest trace started, or undefined when it has none. */
  latestStartOfAgent(tenantId: string, agentId: string): Promise<number | undefined>;
  /** Up to `limit` trace ids of an agent, for purging it page by page. */
  traceIdsOfAgent(tenantId: string, agentId: string, limit: number): Promise<string[]>;
  deleteTrace(tenantId: string, traceId: string): Promise<void>;
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

export interface TimelineFilter {
  agentId?: string;
  traceId?: string;
  startMs?: number;
  endMs?: number;
  /** Attribute equality filters, e.g. `{ signalName: 'eval.quality' }` or `{ level: 'error' }`. */
  equals?: Record<string, string>;
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
  /** Newest first. */
  list(tenantId: string, filter: TimelineFilter): Promise<T[]>;
}
export type SignalsRepository = TimelineRepository<StoredSignal>;
export type LogsRepository = TimelineRepository<StoredLog>;
