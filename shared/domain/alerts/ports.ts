import type { PageInput, ReadPage, Total } from '../paging/page.ts';
import type { AlertStatus } from './lifecycle.ts';

export const ALERT_CATEGORIES = ['threshold', 'llm'] as const;
export type AlertCategory = (typeof ALERT_CATEGORIES)[number];

export interface AlertRecord {
  id: string;
  tenantId: string;
  agentId: string;
  agentName: string;
  type: string;
  category: AlertCategory;
  severity: string;
  status: AlertStatus;
  message: string;
  value: number | null;
  threshold: number | null;
  /** The judge's reasoning, for LLM-analysed alerts. */
  reasoning: string | null;
  occurrenceCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
  /** The latest 20 traces it occurred in, newest first. */
  traceIds: string[];
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Keys of the latest occurrences, so a redelivered detection is not counted twice. */
  occurrenceKeys: string[];
  version: number;
}

export interface Occurrence {
  agentId: string;
  agentName: string;
  type: string;
  category: AlertCategory;
  severity: string;
  message: string;
  value: number | null;
  threshold: number | null;
  reasoning: string | null;
  traceId: string;
  /** Identifies this occurrence (type + trace + span); the same key twice counts once. */
  key: string;
  /** When it happened (its span's or trace's end). */
  at: Date;
  /** When it is recorded: the alert's `updatedAt`. */
  recordedAt: Date;
}

export type OccurrenceOutcome = 'opened' | 'counted' | 'duplicate';

/** What narrows an alert list. */
export interface AlertQuery {
  agentId?: string;
  status?: AlertStatus;
  type?: string;
  severity?: string;
  startMs?: number;
  endMs?: number;
}

export interface AlertsRepository {
  get(tenantId: string, alertId: string, consistent?: boolean): Promise<AlertRecord | undefined>;
  /** An alert read consistently, its list entries moved to its latest occurrence if they are still by its creation (written before 2026-11-30). */
  getListed(tenantId: string, alertId: string): Promise<AlertRecord | undefined>;
  /**
   * Adds one occurrence to the agent's active alert of this type, opening one if there is none; a key
   * already counted is not counted again.
   */
  recordOccurrence(tenantId: string, o: Occurrence, newId: () => string): Promise<{ alert: AlertRecord; outcome: OccurrenceOutcome }>;
  /**
   * Moves an alert to `status` (the caller has checked the transition). Resolving releases the
   * agent + type, so the next occurrence opens a new alert; reopening a resolved alert claims it
   * back, which fails (answering the id of the newer alert) when a newer alert of the type is active;
   * `changed`: someone else changed the alert since it was read.
   */
  setStatus(current: AlertRecord, status: AlertStatus, now: Date): Promise<AlertRecord | { activeAlertId: string } | 'changed'>;
  /** One page of alerts, latest occurrence first; a date range keeps those with an occurrence in it. */
  page(tenantId: string, q: AlertQuery, page: PageInput): Promise<ReadPage<AlertRecord>>;
  count(tenantId: string, q: AlertQuery): Promise<Total>;
  /**
   * The alerts of a tenant or one agent with an occurrence in the range, latest occurrence first, up to
   * `max` of each status read (what the per-agent summary counts); `complete` when none was left unread.
   */
  recent(tenantId: string, filter: { agentId?: string; startMs?: number; endMs?: number }, max: number): Promise<{ alerts: AlertRecord[]; complete: boolean }>;
  /** A page of active alerts across tenants (the auto-resolve job walks them). */
  activePage(
    startAfter: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ refs: { tenantId: string; alertId: string }[]; next: Record<string, unknown> | undefined }>;
  forgetActive(tenantId: string, alertId: string): Promise<void>;
  /** Deletes up to `limit` alerts of an agent (a deleted agent's purge); answers how many it deleted. */
  deleteOfAgent(tenantId: string, agentId: string, limit: number): Promise<number>;
  /**
   * Claims the right to notify for an agent + type: at most once per cooldown. The same job claiming
   * again (a retried message) succeeds, so a retry still sends what the first attempt did not.
   */
  claimNotification(tenantId: string, agentId: string, type: string, jobId: string, now: Date, cooldownMinutes: number): Promise<boolean>;
}
