import { isDeepStrictEqual } from 'node:util';
import type { TenantRecord } from '../accounts/ports.ts';
import { noteAgentsSeen } from '../agents/agents.ts';
import { implicitAgent } from '../agents/implicit.ts';
import { type AgentRecord, agentNameKey } from '../agents/ports.ts';
import { effectiveAlertConfig } from '../alerts/config.ts';
import { type Detection, detectInSpan, detectInTrace, propagatedFailures } from '../alerts/detect.ts';
import { raiseAlerts } from '../alerts/service.ts';
import { bucketStart } from '../analytics/buckets.ts';
import { rollUpFinishedTraces } from '../analytics/ingest.ts';
import { mapConcurrently, PER_TRACE_CALLS_AT_ONCE } from '../concurrency.ts';
import { contentId } from '../content-id.ts';
import { queueEvaluations } from '../evaluation/jobs.ts';
import { recordExperimentObservations } from '../experiments/observations.ts';
import { stopExperimentsOfAgent } from '../experiments/service.ts';
import { forgetAgentInLake, writeToLake } from '../lake/ingest.ts';
import type { LakeWriter } from '../lake/ports.ts';
import { PLANS } from '../plans/plans.ts';
import type { Clock, Ids, MetricsSink, QueuePort } from '../ports.ts';
import { estimateCost } from '../pricing/estimate.ts';
import { checkTracesAgainstProfiles, type FinishedTrace } from '../profiles/ingest.ts';
import { backoff } from '../retry.ts';
import { leaveSession, recordSessions } from '../sessions/ingest.ts';
import { effectiveAgentName } from '../spans/model.ts';
import type { SessionMove, StoredLog, StoredSignal, StoredSpanWrite, StoredSummary } from '../spans/ports.ts';
import { spanGroupsOf } from '../spans/span-groups.ts';
import { type StoredSpan, summarizeTrace, type TraceSummary } from '../spans/summary.ts';
import { orderSpans } from '../spans/views.ts';
import type { Store } from '../store.ts';
import type { IngestMessage } from './messages.ts';
import { boundTraceContent, contentBytesOf } from './trace-content.ts';

export interface PersistDeps {
  store: Pick<Store, 'tenants' | 'agents' | 'traces' | 'signals' | 'logs' | 'alerts' | 'rollups' | 'experiments' | 'profiles' | 'sessions'>;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
  metricsSink: MetricsSink;
  lake: LakeWriter;
}

type TelemetryMessage = Extract<IngestMessage, { kind: 'telemetry' }>;
type PurgeMessage = Extract<IngestMessage, { kind: 'purge-agent' }>;

const DAY_SECONDS = 86_400;
const PURGE_PAGE = 100;
/** Rounds of reading and writing the summaries of traces that other workers write at the same time. */
const SUMMARY_ATTEMPTS = 8;

const distinct = <T>(values: Iterable<T | null | undefined>): T[] => [...new Set([...values].filter((v): v is T => v !== null && v !== undefined))];
/** One spelling per agent: names alike by `agentNameKey` are the same agent. */
const distinctNames = (names: Iterable<string | null>): string[] => [...new Map(distinct(names).map((n) => [agentNameKey(n), n.trim()] as const)).values()];

/** Agent ids by `agentNameKey`, creating the agents seen for the first time. */
async function resolveAgents(tenantId: string, names: string[], deps: PersistDeps): Promise<Map<string, string>> {
  const now = deps.clock.now();
  const ids = await Promise.all(names.map((name) => deps.store.agents.ensure(implicitAgent(tenantId, name, deps.ids, now))));
  return new Map(names.map((name, i) => [agentNameKey(name), ids[i]!]));
}

function toStoredSpan(span: TelemetryMessage['spans'][number], agentIds: Map<string, string>): StoredSpan {
  const estimated = span.cost === null ? estimateCost(span.model, span) : null;
  const agentName = effectiveAgentName(span);
  return {
    ...span,
    agentName,
    agentId: agentName ? (agentIds.get(agentNameKey(agentName)) ?? null) : null,
    durationMs: span.endTimeMs === null ? null : Math.max(0, span.endTimeMs - span.startTimeMs),
    cost: span.cost ?? estimated,
    costEstimated: estimated !== null,
  };
}

/** What telemetry messages added: the spans stored and the alerts they opened. */
export interface PersistOutcome {
  spansStored: number;
  alertsRaised: number;
}

/** What a worker batch's telemetry added, and the messages that could not be stored (to be retried), with their errors. */
export interface BatchOutcome extends PersistOutcome {
  failed: Map<TelemetryMessage, unknown>;
}

/**
 * Stores a worker batch of telemetry messages, each tenant's together. When a tenant's messages fail
 * together, each is stored alone, so that only the ones that fail alone are retried.
 */
export async function persistTelemetryBatch(messages: readonly TelemetryMessage[], deps: PersistDeps): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { spansStored: 0, alertsRaised: 0, failed: new Map() };
  const store = async (group: readonly TelemetryMessage[]): Promise<void> => {
    try {
      const { spansStored, alertsRaised } = await persistTelemetry(group, deps);
      outcome.spansStored += spansStored;
      outcome.alertsRaised += alertsRaised;
    } catch (err) {
      if (group.length === 1) outcome.failed.set(group[0]!, err);
      else await Promise.all(group.map((message) => store([message])));
    }
  };
  const byTenant = new Map<string, TelemetryMessage[]>();
  for (const m of messages) byTenant.set(m.tenantId, [...(byTenant.get(m.tenantId) ?? []), m]);
  await Promise.all([...byTenant.values()].map(store));
  return outcome;
}

/** One tenant's messages of a worker batch, as the stages of `persistTelemetry` share them. */
interface TenantBatch {
  tenant: TenantRecord;
  tenantId: string;
  messages: readonly TelemetryMessage[];
  /** For what is not a message's own span groups: the latest expiry (the messages of a batch arrived moments apart). */
  expiresAt: number;
  nowMs: number;
  /** The spans of each message, with the message's expiry. */
  arrivals: Array<{ spans: StoredSpan[]; expiresAt: number }>;
  agentIdOf(name: string | null): string | null;
}

/**
 * Stores one tenant's telemetry messages of a worker batch, reading and writing for all their traces
 * together, as a pipeline of stages. Every stage is idempotent (span groups keyed by their span ids,
 * content ids, a summary recomputed from the stored spans, alert occurrence keys, minute rollups that
 * remember each trace they counted), so messages processed twice leave the same state.
 */
export async function persistTelemetry(messages: readonly TelemetryMessage[], deps: PersistDeps): Promise<PersistOutcome> {
  const batch = await openBatch(messages, deps);
  if (!batch) return { spansStored: 0, alertsRaised: 0 }; // the account was deleted after the data was accepted
  const { tenant, tenantId, expiresAt } = batch;

  const traces = await storeSpans(batch, deps);
  // A trace closed before its root arrived was finished then (see `closeTraces`).
  const finished = traces.filter((t) => t.summary.complete && t.summary.closedAtMs === null && t.arrived.some((s) => s.spanId === t.summary.rootSpanId));
  let alertsRaised = 0;
  if (traces.length > 0) {
    await recordSessions(tenantId, traces, expiresAt, deps);
    await noteAgentsSeen(
      tenantId,
      traces.map((t) => t.summary),
      deps.store.agents,
    );
    alertsRaised = await checkThresholds(tenantId, traces, deps);
    await finishTraces(tenant, finished, expiresAt, deps);
  }
  const signals = await storeTimeline(batch, deps);
  await recordExperimentObservations(tenantId, traces, signals, expiresAt, deps.store);
  await writeToLake(tenantId, traces, signals, expiresAt, deps);
  await recordFacets(batch, traces, signals, deps);
  return { spansStored: batch.arrivals.reduce((n, a) => n + a.spans.length, 0), alertsRaised };
}

/**
 * Stage: what a trace's end sets off, for the traces that just finished (their root arrived ended, or
 * the service closed them): counted in the rollups, checked against their agents' profiles, queued
 * for evaluation, written to the metrics sink. Idempotent like every stage (the rollups count a trace once).
 */
export async function finishTraces(tenant: TenantRecord, finished: readonly FinishedTrace[], expiresAt: number, deps: PersistDeps): Promise<void> {
  const summaries = finished.map((t) => t.summary);
  await rollUpFinishedTraces(tenant.id, summaries, expiresAt, deps.store.rollups);
  await checkTracesAgainstProfiles(tenant.id, finished, expiresAt, deps);
  await queueEvaluations(tenant, summaries, deps);
  await deps.metricsSink.writeTraces(tenant.id, summaries);
}

/** The tenant's batch with its agents resolved (created when seen for the first time); undefined when the tenant is gone. */
async function openBatch(messages: readonly TelemetryMessage[], deps: PersistDeps): Promise<TenantBatch | undefined> {
  const { tenantId } = messages[0]!;
  const tenant = await deps.store.tenants.get(tenantId);
  if (!tenant) return undefined;
  const retentionDays = PLANS[tenant.subscription.plan].features.retention;
  const expiresAtOf = (message: TelemetryMessage) => Math.floor(message.receivedAtMs / 1000) + retentionDays * DAY_SECONDS;
  const names = messages.flatMap((m) => [...m.spans.map(effectiveAgentName), ...m.signals.map((s) => s.agentName), ...m.logs.map((l) => l.agentName)]);
  const agentIds = await resolveAgents(tenantId, distinctNames(names), deps);
  return {
    tenant,
    tenantId,
    messages,
    expiresAt: Math.max(...messages.map(expiresAtOf)),
    nowMs: deps.clock.now().getTime(),
    arrivals: messages.map((m) => ({ spans: m.spans.map((s) => toStoredSpan(s, agentIds)), expiresAt: expiresAtOf(m) })),
    agentIdOf: (name) => (name ? (agentIds.get(agentNameKey(name)) ?? null) : null),
  };
}

/** Stage: the span groups written, then the summary of every trace they belong to. */
async function storeSpans(batch: TenantBatch, deps: PersistDeps): Promise<StoredTrace[]> {
  if (batch.arrivals.every((a) => a.spans.length === 0)) return [];
  const stored = await deps.store.traces.summaries(batch.tenantId, distinct(batch.arrivals.flatMap((a) => a.spans.map((s) => s.traceId))));
  const arrivals = boundTraceContent(batch.arrivals, stored);
  await deps.store.traces.putSpansOfMessages(batch.tenantId, arrivals, batch.nowMs);
  return summarizeTraces(batch.tenantId, arrivals, batch.nowMs, deps, stored);
}

/** What an item's id hashes: its content, and for an item sent without a time its `arrivalKey` (items with a time keep the ids they always had). */
const withArrivalKey = (content: unknown[], arrivalKey: string | undefined): unknown[] => (arrivalKey === undefined ? content : [...content, arrivalKey]);

/**
 * Stage: the signals and logs, each attributed to its agent (one that names a trace but no agent
 * belongs to the trace's agent, and is shown with its name; its id still hashes what was sent).
 */
async function storeTimeline(batch: TenantBatch, deps: PersistDeps): Promise<StoredSignal[]> {
  const { tenantId, messages, expiresAt } = batch;
  const timeline = messages.flatMap((m) => [...m.signals, ...m.logs]);
  const traceAgents = new Map<string, { agentId: string | null; agentName: string | null }>();
  const tracesToLookUp = distinct(timeline.filter((i) => !i.agentName).map((i) => i.traceId));
  if (tracesToLookUp.length > 0) {
    const summaries = await deps.store.traces.summaries(tenantId, tracesToLookUp);
    for (const traceId of tracesToLookUp) {
      const summary = summaries.get(traceId)?.summary;
      traceAgents.set(traceId, { agentId: summary?.agentId ?? null, agentName: summary?.agentName ?? null });
    }
  }
  const traceAgentOf = (i: { traceId: string | null }) => (i.traceId ? traceAgents.get(i.traceId) : undefined);
  const agentOf = (i: { agentName: string | null; traceId: string | null }) => batch.agentIdOf(i.agentName) ?? traceAgentOf(i)?.agentId ?? null;
  const agentNameOf = (i: { agentName: string | null; traceId: string | null }) => i.agentName ?? traceAgentOf(i)?.agentName ?? null;

  const signals: StoredSignal[] = messages
    .flatMap((m) => m.signals)
    .map(({ arrivalKey, ...s }) => ({
      ...s,
      id: contentId('sig', withArrivalKey([s.signalName, s.value, s.traceId, s.spanId, s.agentName, s.timestampMs, s.metadata], arrivalKey)),
      agentId: agentOf(s),
      agentName: agentNameOf(s),
      timestamp: new Date(s.timestampMs).toISOString(),
    }));
  const logs: StoredLog[] = messages
    .flatMap((m) => m.logs)
    .map(({ arrivalKey, ...l }) => ({
      ...l,
      id: contentId('log', withArrivalKey([l.timestampMs, l.level, l.message, l.traceId, l.spanId, l.agentName], arrivalKey)),
      agentId: agentOf(l),
      agentName: agentNameOf(l),
      timestamp: new Date(l.timestampMs).toISOString(),
    }));
  await Promise.all([
    signals.length > 0 && deps.store.signals.put(tenantId, signals, expiresAt),
    logs.length > 0 && deps.store.logs.put(tenantId, logs, expiresAt),
  ]);
  return signals;
}

/** Stage: the values the filters offer (`GET /spans/filters`). */
async function recordFacets(batch: TenantBatch, traces: readonly StoredTrace[], signals: readonly StoredSignal[], deps: PersistDeps): Promise<void> {
  const spans = batch.arrivals.flatMap((a) => a.spans);
  await deps.store.traces.addFacets(batch.tenantId, {
    models: distinct(spans.map((s) => s.model)),
    kinds: distinct(spans.map((s) => s.kind)),
    toolNames: distinct(spans.map((s) => s.toolName)),
    errorTypes: distinct(spans.map((s) => s.errorType)),
    traceNames: distinct(traces.map((t) => t.summary.name)),
    tags: distinct(traces.flatMap((t) => t.summary.tags)),
    statuses: distinct(traces.map((t) => t.summary.status)),
    signalNames: distinct(signals.map((s) => s.signalName)),
  });
}

/** The spans a batch brought of one trace, by span group, and the latest expiry of their messages. */
interface Arrival {
  groups: Map<string, StoredSpan[]>;
  expiresAt: number;
}

/**
 * The summary of every trace the spans belong to, computed from all its stored spans and written.
 * The stored spans are those of the span groups the stored summary lists (read together for all the
 * traces) and the groups just written; a summary written without that list has its trace's groups
 * queried. A summary is written only if the stored one is still the one read (and not when nothing
 * changed, as on a redelivery); the traces where another worker wrote in between are read and
 * summarised again, so the last summary written holds every group.
 */
async function summarizeTraces(
  tenantId: string,
  arrivals: ReadonlyArray<{ spans: readonly StoredSpan[]; expiresAt: number }>,
  nowMs: number,
  deps: PersistDeps,
  /** The summaries as read before the spans were written, for the first attempt. */
  readBefore?: ReadonlyMap<string, StoredSummary>,
): Promise<StoredTrace[]> {
  const byTrace = new Map<string, Arrival>();
  for (const { spans, expiresAt } of arrivals) {
    for (const { traceId, groupId, spans: group } of spanGroupsOf(spans)) {
      const arrival = byTrace.get(traceId) ?? { groups: new Map(), expiresAt };
      arrival.groups.set(groupId, group);
      arrival.expiresAt = Math.max(arrival.expiresAt, expiresAt);
      byTrace.set(traceId, arrival);
    }
  }
  const done: StoredTrace[] = [];
  let pending = [...byTrace.keys()];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === SUMMARY_ATTEMPTS) throw new Error(`${pending.length} trace summaries stayed contended for ${SUMMARY_ATTEMPTS} attempts`);
    if (attempt > 0) await backoff(attempt);
    const storedSummaries = attempt === 0 && readBefore ? readBefore : await deps.store.traces.summaries(tenantId, pending);
    const earlier = await storedSpanGroups(tenantId, pending, storedSummaries, byTrace, deps);
    const written = await mapConcurrently(pending, PER_TRACE_CALLS_AT_ONCE, async (traceId) => {
      const arrival = byTrace.get(traceId)!;
      const storedSummary = storedSummaries.get(traceId);
      const latest = new Map<string, StoredSpanWrite>();
      for (const span of earlier.get(traceId)?.spans ?? []) latest.set(span.spanId, span);
      for (const span of [...arrival.groups.values()].flat()) latest.set(span.spanId, { ...span, writtenAtMs: nowMs });
      const stored = [...latest.values()];
      const spanGroups = distinct([...(earlier.get(traceId)?.groupIds ?? []), ...arrival.groups.keys()]).sort();
      // Past the stored summary's revision, always: spans sent again by a batch that started before
      // the one that wrote it carry earlier write times, and a lower revision would let the copies of
      // the trace that this summary replaces pass for newer than its own.
      const revision = Math.max(
        stored.reduce((max, s) => Math.max(max, s.writtenAtMs), 0),
        (storedSummary?.revision ?? 0) + 1,
      );
      const summary = summarizeTrace(stored, storedSummary?.summary.closedAtMs ?? null);
      const unchanged =
        storedSummary?.version !== undefined && isDeepStrictEqual(storedSummary.spanGroups, spanGroups) && isDeepStrictEqual(storedSummary.summary, summary);
      // Moves a writer that failed before its last removal left to finish (see `recordSessions`).
      const movesLeft = storedSummary?.movesLeft ?? [];
      const trace: StoredTrace = { summary, revision, stored, arrived: [...arrival.groups.values()].flat(), movesLeft };
      if (unchanged) return trace;
      const leaving = await leaveSession(tenantId, traceId, storedSummary?.summary.sessionId ?? null, summary.sessionId, deps);
      const put = await deps.store.traces.putSummary(tenantId, summary, revision, arrival.expiresAt, {
        basis: { spanGroups, replaces: storedSummary, contentBytes: stored.reduce((sum, span) => sum + contentBytesOf(span), 0) },
        leaving,
      });
      if (!put) return undefined;
      const replaced = storedSummary?.summary;
      const startMoved = replaced !== undefined && replaced.sessionId === summary.sessionId && replaced.startTimeMs !== summary.startTimeMs;
      return { ...trace, movesLeft: leaving ? [...movesLeft, leaving] : movesLeft, ...(startMoved ? { replacedStartMs: replaced.startTimeMs } : {}) };
    });
    done.push(...written.filter((t) => t !== undefined));
    pending = pending.filter((_, i) => written[i] === undefined);
  }
  return done;
}

/** The span groups stored before this batch's of each trace, besides the batch's own: their ids and spans. */
async function storedSpanGroups(
  tenantId: string,
  traceIds: readonly string[],
  summaries: ReadonlyMap<string, StoredSummary>,
  arrivals: ReadonlyMap<string, Arrival>,
  deps: PersistDeps,
): Promise<Map<string, { groupIds: string[]; spans: StoredSpanWrite[] }>> {
  const listed = traceIds.flatMap((traceId) =>
    (summaries.get(traceId)?.spanGroups ?? []).filter((groupId) => !arrivals.get(traceId)!.groups.has(groupId)).map((groupId) => ({ traceId, groupId })),
  );
  const unlisted = traceIds.filter((traceId) => summaries.has(traceId) && summaries.get(traceId)!.spanGroups === undefined);
  const [listedSpans, queried] = await Promise.all([
    listed.length > 0 ? deps.store.traces.spansOfGroups(tenantId, listed) : new Map<string, StoredSpanWrite[]>(),
    Promise.all(unlisted.map((traceId) => deps.store.traces.spanGroupsOfTrace(tenantId, traceId))),
  ]);
  const found = new Map(unlisted.map((traceId, i) => [traceId, queried[i]!]));
  for (const traceId of distinct(listed.map((g) => g.traceId))) {
    found.set(traceId, { groupIds: listed.filter((g) => g.traceId === traceId).map((g) => g.groupId), spans: listedSpans.get(traceId) ?? [] });
  }
  return found;
}

interface StoredTrace {
  summary: TraceSummary;
  /** The latest span write the summary saw. */
  revision: number;
  /** Every span of the trace stored so far. */
  stored: StoredSpan[];
  /** The spans this batch brought. */
  arrived: StoredSpan[];
  /** The moves of the trace out of a session whose last removal is still to do (see `recordSessions`). */
  movesLeft: SessionMove[];
  /** The start of the summary this batch replaced, in the same session, when it moved (see `SessionTrace`). */
  replacedStartMs?: number;
}

/**
 * Threshold alerts: per-call checks on the spans that arrived and per-trace checks on finished traces.
 * A child span often names no agent until its trace's root arrives, and is its nearest ancestor's;
 * one whose agent is not known as it arrives is left for the root's arrival, when every stored span
 * of the trace is checked (a span checked before, under the same agent, counts once: occurrences are
 * idempotent per agent and type). The traces the service is closing (`closing`) are settled too:
 * every stored span is checked, and the trace itself (it did not finish). A failure passed up from a failed descendant is that descendant's
 * occurrence, not another one, and so is a trace reaching the timeout threshold when one of its spans timed out.
 */
export async function checkThresholds(
  tenantId: string,
  traces: ReadonlyArray<Pick<StoredTrace, 'summary' | 'stored' | 'arrived'>>,
  deps: PersistDeps,
  { closing = false } = {},
): Promise<number> {
  const byAgent = new Map<string, Detection[]>();
  const add = (agentId: string | null, found: Detection[]) => {
    if (agentId && found.length > 0) byAgent.set(agentId, [...(byAgent.get(agentId) ?? []), ...found]);
  };
  const agents = new Map<string, Promise<AgentRecord | undefined>>();
  const agentOf = (id: string) => {
    if (!agents.has(id)) agents.set(id, deps.store.agents.get(tenantId, id));
    return agents.get(id)!;
  };
  const configOf = async (id: string | null) => (id ? effectiveAlertConfig((await agentOf(id))?.alertConfig) : undefined);

  for (const { summary, stored, arrived } of traces) {
    const settled = closing || arrived.some((s) => s.spanId === summary.rootSpanId);
    const propagated = propagatedFailures(stored);
    // A span naming no agent is its nearest ancestor's (a sub-agent's tool call is the sub-agent's), as the trace shows it.
    const agentOfSpan = new Map(orderSpans(stored).map(({ span }) => [span.spanId, span.agentId]));
    // Until the root is stored, a span whose agent is not known yet (none named on it or on a stored
    // ancestor) waits for the pass that settles the trace: checked now under the trace's agent as it
    // stands, it would be checked again under its own once known, and count on two agents.
    const fallback = settled || summary.rootSpanId !== null ? summary.agentId : null;
    let spanTimedOut = false;
    for (const span of settled ? stored : arrived) {
      const agentId = agentOfSpan.get(span.spanId) ?? span.agentId ?? fallback;
      const config = await configOf(agentId);
      if (config && (span.endTimeMs !== null || span.status === 'error')) {
        const found = detectInSpan(span, config, propagated.has(span.spanId));
        spanTimedOut ||= found.some((d) => d.type === 'timeout');
        add(agentId, found);
      }
    }
    const traceConfig = await configOf(summary.agentId);
    if (traceConfig && settled) add(summary.agentId, detectInTrace(summary, traceConfig, spanTimedOut));
  }
  let raised = 0;
  for (const [agentId, detections] of byAgent) {
    const agent = await agentOf(agentId);
    if (agent) raised += await raiseAlerts(tenantId, agent, detections, deps);
  }
  return raised;
}

/** How a purge goes on: the next page at once, or the final sweep after a delay. */
export interface PurgeContinuation {
  message: PurgeMessage;
  delayed: boolean;
}

/**
 * Deletes a deleted agent's data a page at a time. When nothing is left, one final sweep follows after
 * a delay: an ingest worker that resolved the agent before it was deleted may still be writing its
 * traces, and an index may still be catching up. Answers what comes next, or undefined when done.
 */
export async function purgeAgent(message: PurgeMessage, deps: PersistDeps): Promise<PurgeContinuation | undefined> {
  const { tenantId, agentId } = message;
  // Usually done already by the request that queued this; if that request failed after queuing, here.
  await deps.store.agents.delete(tenantId, agentId);
  await stopExperimentsOfAgent(tenantId, agentId, deps);
  const traces = await deps.store.traces.tracesOfAgent(tenantId, agentId, PURGE_PAGE);
  // Marked first: a worker's session copy checked against the summary from then on deletes itself
  // (`SessionsRepository.putTraces`), and one checked before was written before the removals below.
  // The mark names the sessions as they are now: a worker may have moved the trace since the page
  // was read, or failed to finish leaving a session. Each session then loses the page's traces in one
  // read of it, not one per trace. The summaries go last, so a purge stopped before finds the traces
  // again and starts over.
  const named = await mapConcurrently(traces, PER_TRACE_CALLS_AT_ONCE, ({ traceId }) => deps.store.traces.markDeleting(tenantId, traceId));
  const leaving = new Map<string, string[]>();
  traces.forEach(({ traceId, sessionId }, i) => {
    for (const session of distinct([sessionId, ...(named[i] ?? [])])) leaving.set(session, [...(leaving.get(session) ?? []), traceId]);
  });
  for (const [session, traceIds] of leaving) await deps.store.sessions.removeTraces(tenantId, session, traceIds);
  // Out of the tenant's analytics before the summaries go, which say which minutes counted them.
  const tenant = traces.length > 0 ? await deps.store.tenants.get(tenantId) : undefined;
  if (tenant) {
    const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + PLANS[tenant.subscription.plan].features.retention * DAY_SECONDS;
    await deps.store.rollups.forgetAgent(
      tenantId,
      agentId,
      traces.map((t) => bucketStart(t.startTimeMs, 'minute')),
      expiresAt,
    );
  }
  await mapConcurrently(traces, PER_TRACE_CALLS_AT_ONCE, ({ traceId }) => deps.store.traces.deleteTrace(tenantId, traceId));
  const signals = await deps.store.signals.deleteOfAgent(tenantId, agentId, PURGE_PAGE);
  const logs = await deps.store.logs.deleteOfAgent(tenantId, agentId, PURGE_PAGE);
  const alerts = await deps.store.alerts.deleteOfAgent(tenantId, agentId, PURGE_PAGE);
  await deps.store.profiles.delete(tenantId, agentId);
  if ([traces.length, signals, logs, alerts].includes(PURGE_PAGE)) return { message, delayed: false };
  if (!message.finalSweep) return { message: { ...message, finalSweep: true }, delayed: true };
  await forgetAgentInLake(tenantId, agentId, deps);
  return undefined;
}
