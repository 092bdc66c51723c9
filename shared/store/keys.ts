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
  SK: `AGENTNAME#${enc(name.trim().toLowerCase())}`,
});
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
/** GSI1: a tenant-wide collection in time order; GSI2: the same collection of one agent (traces: GSI2 only, see `traceIndexKeys`). */
export const tenantCollection = (tenantId: string, collection: Collection) => `TENANT#${enc(tenantId)}#${collection}`;
export const agentCollection = (tenantId: string, agentId: string, collection: Collection) =>
  `TENANT#${enc(tenantId)}#AGENT#${enc(agentId)}#${collection}`;
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
/** Hours of a tenant whose minute buckets changed since the hour (and its day) were last recomputed, oldest first. */
export const rollupDirty = (tenantId: string, hourStartMs: number) => ({ PK: rollupDirtyPartition(), SK: `${rollupDirtyBefore(hourStartMs)}#${enc(tenantId)}` });
export const rollupDirtyPartition = () => 'ROLLUPDIRTY';
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
export const delivery = (messageId: string) => ({ PK: `DELIVERY#${enc(messageId)}`, SK: 'DELIVERY' });
/** A tenant's evaluations and judge usage of one UTC day (`YYYY-MM-DD`): the daily budget and the cost ledger. */
export const evaluationUsage = (tenantId: string, day: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `EVALUSAGE#${day}` });
/** Failed sign-ins of one e-mail address (by its hash), for the per-account backoff. */
export const signInFailures = (emailHash: string) => ({ PK: `SIGNIN#${emailHash}`, SK: 'SIGNIN' });
export const rateWindow = (credential: string, tier: string, windowStart: number) => ({
  PK: `RATE#${enc(credential)}#${tier}`,
  SK: String(windowStart),
});


export type Collection = 'TRACES' | 'SIGNALS' | 'LOGS' | 'ALERTS' | 'EXPERIMENTS';

/** Sort key of time-ordered collections: ISO time then id, so ranges and newest-first pages are key conditions. */
export const timeSortKey = (timeMs: number, id: string): string => `${new Date(timeMs).toISOString()}#${id}`;

/**
 * The index attributes that list an item in its tenant's collection (GSI1) and, when it belongs to
 * an agent, in the agent's (GSI2), in time order. Not traces: a summary has one entry (`traceIndexKeys`).
 */
export function collectionIndexKeys(tenantId: string, agentId: string | null, collection: Exclude<Collection, 'TRACES'>, timeMs: number, id: string) {
  const { gsi1, gsi2 } = TABLE.indexes;
  const sortKey = timeSortKey(timeMs, id);
  return {
    [gsi1.partitionKey]: tenantCollection(tenantId, collection),
    [gsi1.sortKey]: sortKey,
    ...(agentId ? { [gsi2.partitionKey]: agentCollection(tenantId, agentId, collection), [gsi2.sortKey]: sortKey } : {}),
  };
}

/** The agent scope of what names no agent (its trace list, its part of a minute bucket): generated agent ids are `agt_…`, so none is `-`. */
export const NO_AGENT = '-';

/**
 * A trace summary's one index entry: in its agent's trace list (GSI2), or the tenant's list of
 * agentless traces, in time order. The tenant's trace list is the union of these lists, which costs
 * the listing a query per agent and saves every trace a second index entry (a write and a copy).
 */
export function traceIndexKeys(tenantId: string, agentId: string | null, startTimeMs: number, traceId: string) {
  const { gsi2 } = TABLE.indexes;
  return {
    [gsi2.partitionKey]: agentCollection(tenantId, agentId ?? NO_AGENT, 'TRACES'),
    [gsi2.sortKey]: timeSortKey(startTimeMs, traceId),
  };
}

export const rollupSortKey = (granularity: string, startMs: number): string => `${granularity}#${new Date(startMs).toISOString()}`;

/** The sort keys below this one are the dirty markers of earlier hours: the hour start, zero-padded so that text order is time order. */
export const rollupDirtyBefore = (hourStartMs: number): string => String(hourStartMs).padStart(16, '0');

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Item attributes that are key material, removed before an item becomes a record. */
export const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'expiresAt', 'entity'] as const;

export function stripKeys<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...item };
  for (const k of KEY_ATTRIBUTES) delete out[k];
  return out as T;
}
