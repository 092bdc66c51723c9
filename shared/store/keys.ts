import { createHash } from 'node:crypto';
import { agentNameKey } from '../domain/agents/ports.ts';
import { traceState } from '../domain/spans/ports.ts';
import { TABLE } from './table.ts';

/**
 * Key builders for every entity in the single table: defined once, imported by repositories and tests
 * as `import * as keys from './keys.ts'`, so a bundle holds only the builders it calls. The access
 * patterns they serve are listed in shared/store/README.md.
 */
const enc = (part: string): string => part.replace(/#/g, '%23');

export const SPAN_GROUP_PREFIX = 'SPANS#';

export const user = (userId: string) => ({ PK: `USER#${enc(userId)}`, SK: 'USER' });
/** Uniqueness claim of an e-mail address, and the login lookup. */
export const emailClaim = (email: string) => ({ PK: `EMAIL#${enc(normaliseEmail(email))}`, SK: 'EMAIL' });
/** An external identity provider's subject (a Cognito user) mapped to our user. */
export const externalIdentity = (issuer: string, subject: string) => ({
  PK: `IDENTITY#${enc(issuer)}#${enc(subject)}`,
  SK: 'IDENTITY',
});
export const tenant = (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: 'TENANT' });
export const usage = (tenantId: string, periodStart: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `USAGE#${periodStart}` });
export const agentPrefix = (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SKPrefix: 'AGENT#' });
export const agent = (tenantId: string, agentId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `AGENT#${enc(agentId)}` });
/** Uniqueness claim of an agent name within a tenant (names compare case-insensitively). */
export const agentName = (tenantId: string, name: string) => ({
  PK: `TENANT#${enc(tenantId)}`,
  SK: `AGENTNAME#${enc(agentNameKey(name))}`,
});
/** Where a claim written before 2026-11-30 lies, its name not normalized (NFC): one spelled in decomposed letters lies elsewhere now. */
export const legacyAgentName = (tenantId: string, name: string) => ({
  PK: `TENANT#${enc(tenantId)}`,
  SK: `AGENTNAME#${enc(name.trim().toLowerCase())}`,
});
/** The lock that takes a tenant's agent creates one at a time while the plan's limit is checked (not under `AGENT#`, which counts agents). */
export const agentCreationLock = (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: 'AGENTCREATION' });
/** The sort keys of every name claim, in name order: `AGENTNAME#…`, below `AGENTNAME$` (`$` follows `#`). */
export const agentNameRange = { lower: 'AGENTNAME#', upper: 'AGENTNAME$' };
export const facets = (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: 'FACETS' });
/** Everything of one trace lives in one partition: its summary, spans, signals and logs. */
export const tracePartition = (tenantId: string, traceId: string) => `TENANT#${enc(tenantId)}#TRACE#${enc(traceId)}`;
/** Spans of one trace that arrived together, in one compressed item; `groupId` is derived from their span ids. */
export const spanGroup = (tenantId: string, traceId: string, groupId: string) => ({
  PK: `TENANT#${enc(tenantId)}#TRACE#${enc(traceId)}`,
  SK: `${SPAN_GROUP_PREFIX}${groupId}`,
});
export const traceSummary = (tenantId: string, traceId: string) => ({ PK: `TENANT#${enc(tenantId)}#TRACE#${enc(traceId)}`, SK: 'SUMMARY' });
/** Signals and logs that name no trace are kept in one partition per tenant and day. */
export const untracedPartition = (tenantId: string, kind: 'SIGNALS' | 'LOGS', day: string) => `TENANT#${enc(tenantId)}#${kind}#${day}`;
/** GSI1: a tenant-wide collection in time order; GSI2: the same collection of one agent; `part` narrows it (a log level, an alert status, a trace state). */
export const tenantCollection = (tenantId: string, collection: Collection, part?: string) => `TENANT#${enc(tenantId)}#${collection}${part ? `#${part}` : ''}`;
export const agentCollection = (tenantId: string, agentId: string, collection: Collection, part?: string) =>
  `TENANT#${enc(tenantId)}#AGENT#${enc(agentId)}#${collection}${part ? `#${part}` : ''}`;
/** GSI3: a user's traces or sessions. */
export const userCollection = (tenantId: string, userId: string, collection: 'TRACES' | 'SESSIONS') =>
  `TENANT#${enc(tenantId)}#USER#${enc(userId)}#${collection}`;
/** GSI3: a tenant's signals of one name. */
export const signalNameCollection = (tenantId: string, signalName: string) => `TENANT#${enc(tenantId)}#SIGNALNAME#${enc(signalName)}`;
export const apiKey = (keyId: string) => ({ PK: `APIKEY#${enc(keyId)}`, SK: 'APIKEY' });
export const apiKeysOfTenant = (tenantId: string, createdAt: string, keyId: string) => ({
  GSI1PK: `TENANT#${enc(tenantId)}#APIKEYS`,
  GSI1SK: `${createdAt}#${keyId}`,
});
export const apiKeysOfTenantPartition = (tenantId: string) => `TENANT#${enc(tenantId)}#APIKEYS`;
export const linkToken = (tokenHash: string) => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' });
export const refreshToken = (tokenHash: string) => ({ PK: `REFRESH#${tokenHash}`, SK: 'REFRESH' });
export const refreshFamily = (familyId: string) => ({ PK: `REFRESHFAMILY#${enc(familyId)}`, SK: 'FAMILY' });
export const alert = (tenantId: string, alertId: string) => ({ PK: `TENANT#${enc(tenantId)}#ALERT#${enc(alertId)}`, SK: 'ALERT' });
/** The one open-or-acknowledged alert of an agent and type: claimed conditionally, so there is never a second. */
export const activeAlertPointer = (tenantId: string, agentId: string, type: string) => ({
  PK: `TENANT#${enc(tenantId)}`,
  SK: `ALERTACTIVE#${enc(agentId)}#${type}`,
});
/** Every active alert of every tenant, for the auto-resolve job. */
export const activeAlertIndex = (tenantId: string, alertId: string) => ({ PK: 'ACTIVEALERTS', SK: `${enc(tenantId)}#${enc(alertId)}` });
/** When an agent + type last notified anyone (the cooldown). */
export const alertCooldown = (tenantId: string, agentId: string, type: string) => ({
  PK: `TENANT#${enc(tenantId)}`,
  SK: `ALERTCOOLDOWN#${enc(agentId)}#${type}`,
});
/**
 * The rollup buckets of one scope: an agent id, or `*` for the whole tenant. V2: binary rollups,
 * minute buckets per tenant; the items of the first layout are never read, and expire by TTL.
 */
export const rollupPartition = (tenantId: string, scope: string) => `TENANT#${enc(tenantId)}#ROLLUPV2#${enc(scope)}`;
export const rollup = (tenantId: string, scope: string, granularity: string, startMs: number) => ({
  PK: rollupPartition(tenantId, scope),
  SK: rollupSortKey(granularity, startMs),
});
/**
 * A scope's settled days: the sum of its day buckets over a window of whole past days, and how often
 * those buckets changed (see `RollupsRepository.settled`). Sorts apart from the buckets' `minute#`, `hour#`, `day#`.
 */
export const rollupSettled = (tenantId: string, scope: string) => ({ PK: rollupPartition(tenantId, scope), SK: 'SETTLED' });
/** Hours of a tenant whose minute buckets changed since the hour (and its day) were last recomputed, oldest first. */
export const rollupDirty = (tenantId: string, hourStartMs: number) => ({
  PK: rollupDirtyPartition(),
  SK: `${rollupDirtyBefore(hourStartMs)}#${enc(tenantId)}`,
});
export const rollupDirtyPartition = () => 'ROLLUPDIRTY';
/**
 * Pending traces of every tenant to look at when they may have gone quiet, oldest due first. Spread
 * over CLOSE_SHARDS partitions by trace (a marker is written for every trace that becomes pending, at
 * the ingest rate of the whole service; one partition takes 1,000 writes a second).
 */
export const CLOSE_SHARDS = 16;
export const closeDuePartition = (shard: number) => `TRACECLOSE#${shard}`;
export const closeDue = (tenantId: string, traceId: string, dueAtMs: number) => ({
  PK: closeDuePartition(shardOf(`${tenantId}#${traceId}`, CLOSE_SHARDS)),
  SK: `${closeDueBefore(dueAtMs)}#${enc(tenantId)}#${enc(traceId)}`,
});
/** The sort keys below this one are the markers due before `dueAtMs` (zero-padded, so that text order is time order). */
export const closeDueBefore = (dueAtMs: number): string => String(dueAtMs).padStart(16, '0');
/** The same hours of one tenant, as one set: what a read needs to know which hour and day buckets are stale. */
export const rollupDirtyHours = (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: 'ROLLUPDIRTYHOURS' });
export const experiment = (tenantId: string, experimentId: string) => ({ PK: `TENANT#${enc(tenantId)}#EXPERIMENT#${enc(experimentId)}`, SK: 'EXPERIMENT' });
/**
 * The traces and signals tagged with an experiment, which its results read in one query. Apart from
 * the experiment's own item, so ingest writes never share a partition with the assignment reads.
 */
export const experimentObservations = (tenantId: string, experimentId: string) => `TENANT#${enc(tenantId)}#EXPERIMENT#${enc(experimentId)}#OBSERVATIONS`;
export const experimentTraceObservation = (tenantId: string, experimentId: string, traceId: string) => ({
  PK: `TENANT#${enc(tenantId)}#EXPERIMENT#${enc(experimentId)}#OBSERVATIONS`,
  SK: `TRACE#${enc(traceId)}`,
});
export const experimentSignalObservation = (tenantId: string, experimentId: string, signalId: string) => ({
  PK: `TENANT#${enc(tenantId)}#EXPERIMENT#${enc(experimentId)}#OBSERVATIONS`,
  SK: `SIGNAL#${enc(signalId)}`,
});
/** An agent's behavioural profile and its learning state. */
export const agentProfile = (tenantId: string, agentId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `PROFILE#${enc(agentId)}` });
/** GSI1 entry of a profile while a learning cycle is scheduled: every tenant's profiles in due order. */
export const profileLearningDue = (nextLearningAt: string, tenantId: string, agentId: string) => ({
  GSI1PK: 'PROFILELEARNING',
  GSI1SK: `${nextLearningAt}#${enc(tenantId)}#${enc(agentId)}`,
});
export const profileLearningDuePartition = () => 'PROFILELEARNING';
/** Anomalies of a trace against its agent's profile, kept with the trace's other items. */
export const traceAnomalies = (tenantId: string, traceId: string) => ({ PK: `TENANT#${enc(tenantId)}#TRACE#${enc(traceId)}`, SK: 'ANOMALIES' });
/** An export of a tenant's traces (its job and, once written, where its file is). */
export const traceExport = (tenantId: string, exportId: string) => ({ PK: `TENANT#${enc(tenantId)}#EXPORT#${enc(exportId)}`, SK: 'EXPORT' });
/** GSI1 entry of an export: a tenant's exports, newest first. */
export const exportsOfTenant = (tenantId: string, createdAt: string, exportId: string) => ({
  GSI1PK: exportsOfTenantPartition(tenantId),
  GSI1SK: `${createdAt}#${exportId}`,
});
export const exportsOfTenantPartition = (tenantId: string) => `TENANT#${enc(tenantId)}#EXPORTS`;
/** One of the places a tenant's queued or running exports hold (`MAX_ACTIVE_EXPORTS`), claimed by conditional writes. */
export const exportSlot = (tenantId: string, slot: number) => ({ PK: exportSlotsPartition(tenantId), SK: `SLOT#${slot}` });
export const exportSlotsPartition = (tenantId: string) => `TENANT#${enc(tenantId)}#EXPORTSLOTS`;
export const delivery = (messageId: string) => ({ PK: `DELIVERY#${enc(messageId)}`, SK: 'DELIVERY' });
/** A tenant's evaluations and judge usage of one UTC day (`YYYY-MM-DD`): the daily budget and the cost ledger. */
export const evaluationUsage = (tenantId: string, day: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `EVALUSAGE#${day}` });
/** A conversation: its figures (`SESSION`), its index entry (`INDEX`), the note of a queued refresh (`REFRESH`) and one contribution per trace, by start time. */
export const sessionPartition = (tenantId: string, sessionId: string) => `TENANT#${enc(tenantId)}#SESSION#${enc(sessionId)}`;
export const session = (tenantId: string, sessionId: string) => ({ PK: sessionPartition(tenantId, sessionId), SK: 'SESSION' });
export const sessionIndex = (tenantId: string, sessionId: string) => ({ PK: sessionPartition(tenantId, sessionId), SK: 'INDEX' });
/** The note that a refresh of a large session is queued (sorts before its figures and its traces, so a worker's first page of the partition holds it). */
export const sessionRefreshNote = (tenantId: string, sessionId: string) => ({ PK: sessionPartition(tenantId, sessionId), SK: 'REFRESH' });
export const SESSION_TRACE_PREFIX = 'TRACE#';
export const sessionTrace = (tenantId: string, sessionId: string, startTimeMs: number, traceId: string) => ({
  PK: sessionPartition(tenantId, sessionId),
  SK: `${SESSION_TRACE_PREFIX}${timeSortKey(startTimeMs, traceId)}`,
});
/** An agent deleted within the longest retention: the trace lists leave its traces out, and their totals its counts, until its purge has taken them out of the tenant's rollups. */
export const deletedAgent = (tenantId: string, agentId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `AGENTDELETED#${enc(agentId)}` });
export const DELETED_AGENT_PREFIX = 'AGENTDELETED#';
/** How far the re-indexing of items written before an index layout has gone (see `reindex.ts`). */
export const reindexProgress = (layout: string) => ({ PK: 'REINDEX', SK: layout });
/** Failed sign-ins of one e-mail address (by its hash), for the per-account backoff. */
export const signInFailures = (emailHash: string) => ({ PK: `SIGNIN#${emailHash}`, SK: 'SIGNIN' });
export const rateWindow = (credential: string, tier: string, windowStart: number) => ({
  PK: `RATE#${enc(credential)}#${tier}`,
  SK: String(windowStart),
});

export type Collection = 'TRACES' | 'SIGNALS' | 'LOGS' | 'ALERTS' | 'EXPERIMENTS' | 'SESSIONS' | 'NAMES';

/** Sort key of time-ordered collections: ISO time then id, so ranges and newest-first pages are key conditions. */
export const timeSortKey = (timeMs: number, id: string): string => `${new Date(timeMs).toISOString()}#${id}`;

/**
 * The index attributes that list an item in its tenant's collection (GSI1) and, when it belongs to
 * an agent, in the agent's (GSI2), in time order; `part` splits the collection by a value a filter
 * asks for (so that filter is a key condition, and the whole collection a merge of the parts).
 */
export function collectionIndexKeys(tenantId: string, agentId: string | null, collection: Collection, timeMs: number, id: string, part?: string) {
  const { gsi1, gsi2 } = TABLE.indexes;
  const sortKey = timeSortKey(timeMs, id);
  return {
    [gsi1.partitionKey]: tenantCollection(tenantId, collection, part),
    [gsi1.sortKey]: sortKey,
    ...(agentId ? { [gsi2.partitionKey]: agentCollection(tenantId, agentId, collection, part), [gsi2.sortKey]: sortKey } : {}),
  };
}

/** The agent scope of what names no agent (its part of a minute bucket): generated agent ids are `agt_…`, so none is `-`. */
export const NO_AGENT = '-';

/**
 * A trace summary's index entries, all by start time: the tenant's list and its agent's (GSI1, GSI2),
 * split by state, so a status filter is one partition and the whole list a merge of three; and its
 * user's (GSI3) when it names one. The attributes live on the summary, so they move with it when a
 * later span changes its state or start.
 */
export function traceIndexKeys(
  tenantId: string,
  summary: { agentId: string | null; userId: string | null; startTimeMs: number; traceId: string } & Parameters<typeof traceState>[0],
) {
  const { gsi3 } = TABLE.indexes;
  const sortKey = timeSortKey(summary.startTimeMs, summary.traceId);
  return {
    ...collectionIndexKeys(tenantId, summary.agentId, 'TRACES', summary.startTimeMs, summary.traceId, traceState(summary)),
    ...(summary.userId ? { [gsi3.partitionKey]: userCollection(tenantId, summary.userId, 'TRACES'), [gsi3.sortKey]: sortKey } : {}),
  };
}

export const rollupSortKey = (granularity: string, startMs: number): string => `${granularity}#${new Date(startMs).toISOString()}`;

/** The sort keys below this one are the dirty markers of earlier hours: the hour start, zero-padded so that text order is time order. */
export const rollupDirtyBefore = (hourStartMs: number): string => String(hourStartMs).padStart(16, '0');

/** A stable shard of `text` in [0, shards), the same in every process. */
const shardOf = (text: string, shards: number): number => createHash('sha256').update(text).digest().readUInt32BE(0) % shards;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Item attributes that are key material, removed before an item becomes a record. */
export const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK', 'expiresAt', 'entity'] as const;

export function stripKeys<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...item };
  for (const k of KEY_ATTRIBUTES) delete out[k];
  return out as T;
}
