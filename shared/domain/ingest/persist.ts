import type { Clock, Ids, MetricsSink, QueuePort } from '../ports.ts';
import type { Store } from '../store.ts';
import type { StoredLog, StoredSignal } from '../spans/ports.ts';
import { contentId } from '../content-id.ts';
import { PLANS } from '../plans/plans.ts';
import { estimateCost } from '../pricing/estimate.ts';
import { summarizeTrace, type StoredSpan, type TraceSummary } from '../spans/summary.ts';
import { effectiveAlertConfig } from '../alerts/config.ts';
import { detectInSpan, detectInTrace, propagatedFailures, type Detection } from '../alerts/detect.ts';
import { raiseAlerts } from '../alerts/service.ts';
import { rollUpFinishedTraces } from '../analytics/ingest.ts';
import { checkTracesAgainstProfiles } from '../profiles/ingest.ts';
import { queueEvaluations } from '../evaluation/jobs.ts';
import { recordExperimentObservations } from '../experiments/observations.ts';
import type { AgentRecord } from '../agents/ports.ts';
import type { LakeWriter } from '../lake/ports.ts';
import { forgetAgentInLake, writeToLake } from '../lake/ingest.ts';
import { effectiveAgentName } from '../spans/model.ts';
import { recordSessions } from '../sessions/ingest.ts';
import { noteAgentsSeen } from '../agents/agents.ts';
import type { IngestMessage } from './messages.ts';

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

const distinct = <T>(values: Iterable<T | null | undefined>): T[] => [...new Set([...values].filter((v): v is T => v !== null && v !== undefined))];
const nameKey = (name: string) => name.trim().toLowerCase();
/** One spelling per agent: names differing only in case or surrounding spaces are the same agent. */
const distinctNames = (names: Iterable<string | null>): string[] => [
  ...new Map(distinct(names).map((n) => [nameKey(n), n.trim()] as const)).values(),
];

/** Agent ids by lower-cased name, creating the agents seen for the first time. */
async function resolveAgents(tenantId: string, names: string[], deps: PersistDeps): Promise<Map<string, string>> {
  const now = deps.clock.now().toISOString();
  const ids = await Promise.all(
    names.map((name) =>
      deps.store.agents.ensure({
        id: deps.ids.next('agt'),
        tenantId,
        name: name.trim(),
        description: '',
        profileSettings: { learningEnabled: true },
        source: 'implicit',
        createdAt: now,
        updatedAt: now,
      }),
    ),
  );
  return new Map(names.map((name, i) => [nameKey(name), ids[i]!]));
}

function toStoredSpan(span: TelemetryMessage['spans'][number], agentIds: Map<string, string>): StoredSpan {
  const estimated = span.cost === null ? estimateCost(span.model, span) : null;
  const agentName = effectiveAgentName(span);
  return {
    ...span,
    agentName,
    agentId: agentName ? (agentIds.get(nameKey(agentName)) ?? null) : null,
    durationMs: span.endTimeMs === null ? null : Math.max(0, span.endTimeMs - span.startTimeMs),
    cost: span.cost ?? estimated,
    costEstimated: estimated !== null,
  };
}

/**
 * Stores one queue message of telemetry. Every step is idempotent (span groups keyed by their span
 * ids, content ids, a summary recomputed from the stored spans, alert occurrence keys, minute rollups
 * that remember each trace they counted), so a message processed twice leaves the same state.
 */
/** What a telemetry message added: the spans stored and the alerts they opened. */
export interface PersistOutcome {
  spansStored: number;
  alertsRaised: number;
}

export async function persistTelemetry(message: TelemetryMessage, deps: PersistDeps): Promise<PersistOutcome> {
  const { tenantId } = message;
  const tenant = await deps.store.tenants.get(tenantId);
  if (!tenant) return { spansStored: 0, alertsRaised: 0 }; // the account was deleted after the data was accepted
  const retentionDays = PLANS[tenant.subscription.plan].features.retention;
  const expiresAt = Math.floor(message.receivedAtMs / 1000) + retentionDays * DAY_SECONDS;
  const nowMs = deps.clock.now().getTime();

  const names = [...message.spans.map(effectiveAgentName), ...message.signals.map((s) => s.agentName), ...message.logs.map((l) => l.agentName)];
  const agentIds = await resolveAgents(tenantId, distinctNames(names), deps);
  const agentIdOf = (name: string | null) => (name ? (agentIds.get(nameKey(name)) ?? null) : null);

  const spans = message.spans.map((s) => toStoredSpan(s, agentIds));
  const traces: StoredTrace[] = [];
  let alertsRaised = 0;
  if (spans.length > 0) {
    await deps.store.traces.putSpans(tenantId, spans, expiresAt, nowMs);
    for (const traceId of distinct(spans.map((s) => s.traceId))) {
      const stored = await deps.store.traces.spansOf(tenantId, traceId);
      const revision = stored.reduce((max, s) => Math.max(max, s.writtenAtMs), 0);
      const summary = summarizeTrace(stored);
      await deps.store.traces.putSummary(tenantId, summary, revision, expiresAt);
      traces.push({ summary, revision, stored, arrived: spans.filter((s) => s.traceId === traceId) });
    }
    await recordSessions(tenantId, traces, expiresAt, deps.store);
    await noteAgentsSeen(tenantId, traces.map((t) => t.summary), deps.store.agents);
    alertsRaised = await checkThresholds(tenantId, traces, deps);
    const finished = traces.filter((t) => t.summary.complete && t.arrived.some((s) => s.spanId === t.summary.rootSpanId));
    await rollUpFinishedTraces(tenantId, finished.map((t) => t.summary), expiresAt, deps.store.rollups);
    await checkTracesAgainstProfiles(tenantId, finished, expiresAt, deps);
    await queueEvaluations(tenant, finished.map((t) => t.summary), deps);
    await deps.metricsSink.writeTraces(tenantId, finished.map((t) => t.summary));
  }
  const traceStatuses = traces.map((t) => t.summary.status);

  // A signal or log that names a trace but no agent belongs to the trace's agent.
  const traceAgents = new Map<string, string | null>();
  for (const traceId of distinct([...message.signals, ...message.logs].filter((i) => !i.agentName).map((i) => i.traceId))) {
    traceAgents.set(traceId, (await deps.store.traces.getSummary(tenantId, traceId))?.agentId ?? null);
  }
  const agentOf = (i: { agentName: string | null; traceId: string | null }) =>
    agentIdOf(i.agentName) ?? (i.traceId ? (traceAgents.get(i.traceId) ?? null) : null);

  const signals: StoredSignal[] = message.signals.map((s) => ({
    ...s,
    id: contentId('sig', [s.signalName, s.value, s.traceId, s.spanId, s.agentName, s.timestampMs, s.metadata]),
    agentId: agentOf(s),
    timestamp: new Date(s.timestampMs).toISOString(),
  }));
  const logs: StoredLog[] = message.logs.map((l) => ({
    ...l,
    id: contentId('log', [l.timestampMs, l.level, l.message, l.traceId, l.spanId, l.agentName]),
    agentId: agentOf(l),
    timestamp: new Date(l.timestampMs).toISOString(),
  }));
  if (signals.length > 0) await deps.store.signals.put(tenantId, signals, expiresAt);
  if (logs.length > 0) await deps.store.logs.put(tenantId, logs, expiresAt);
  await recordExperimentObservations(tenantId, traces, signals, expiresAt, deps.store);
  await writeToLake(tenantId, traces, signals, expiresAt, deps);

  await deps.store.traces.addFacets(tenantId, {
    models: distinct(spans.map((s) => s.model)),
    kinds: distinct(spans.map((s) => s.kind)),
    toolNames: distinct(spans.map((s) => s.toolName)),
    errorTypes: distinct(spans.map((s) => s.errorType)),
    traceNames: distinct(traces.map((t) => t.summary.name)),
    statuses: distinct(traceStatuses),
    signalNames: distinct(signals.map((s) => s.signalName)),
  });
  return { spansStored: spans.length, alertsRaised };
}

interface StoredTrace {
  summary: TraceSummary;
  /** The latest span write the summary saw. */
  revision: number;
  /** Every span of the trace stored so far. */
  stored: StoredSpan[];
  /** The spans this message brought. */
  arrived: StoredSpan[];
}

/**
 * Threshold alerts: per-call checks on the spans that arrived and per-trace checks on finished traces.
 * A child span often names no agent until its trace's root arrives; so when the root arrives, every
 * stored span of the trace is checked (a span checked before counts once: occurrences are idempotent).
 * A failure passed up from a failed descendant is that descendant's occurrence, not another one.
 */
async function checkThresholds(tenantId: string, traces: StoredTrace[], deps: PersistDeps): Promise<number> {
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
    const rootArrived = arrived.some((s) => s.spanId === summary.rootSpanId);
    const propagated = propagatedFailures(stored);
    for (const span of rootArrived ? stored : arrived) {
      const agentId = span.agentId ?? summary.agentId;
      const config = await configOf(agentId);
      if (config && (span.endTimeMs !== null || span.status === 'error')) add(agentId, detectInSpan(span, config, propagated.has(span.spanId)));
    }
    const traceConfig = await configOf(summary.agentId);
    if (traceConfig && rootArrived) add(summary.agentId, detectInTrace(summary, traceConfig));
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
  // Usually deleted already by the request that queued this; if that request failed after queuing, here.
  await deps.store.agents.delete(tenantId, agentId);
  const traces = await deps.store.traces.tracesOfAgent(tenantId, agentId, PURGE_PAGE);
  for (const { traceId, sessionId, startTimeMs } of traces) {
    if (sessionId !== null) await deps.store.sessions.removeTrace(tenantId, sessionId, traceId, startTimeMs);
    await deps.store.traces.deleteTrace(tenantId, traceId);
  }
  const signals = await deps.store.signals.deleteOfAgent(tenantId, agentId, PURGE_PAGE);
  const logs = await deps.store.logs.deleteOfAgent(tenantId, agentId, PURGE_PAGE);
  await deps.store.profiles.delete(tenantId, agentId);
  if (traces.length === PURGE_PAGE || signals === PURGE_PAGE || logs === PURGE_PAGE) return { message, delayed: false };
  if (!message.finalSweep) return { message: { ...message, finalSweep: true }, delayed: true };
  await forgetAgentInLake(tenantId, agentId, deps);
  return undefined;
}
