import type { AlertRecord } from '#shared/domain/alerts/ports.ts';
import { BUCKET_MS, bucketStart } from '#shared/domain/analytics/buckets.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { estimateCost } from '#shared/domain/pricing/estimate.ts';
import { sessionFigures } from '#shared/domain/sessions/sessions.ts';
import type { StoredLog, StoredSignal } from '#shared/domain/spans/ports.ts';
import { type StoredSpan, TRACE_QUIET_MS, type TraceSummary } from '#shared/domain/spans/summary.ts';
import { alertItem } from '#shared/store/alerts.ts';
import { type Db, epochSeconds } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { sessionIndexItem, sessionItem, sessionTraceItem } from '#shared/store/sessions.ts';
import { timelineItem } from '#shared/store/timeline.ts';
import { summaryItem, tracesRepository } from '#shared/store/traces.ts';
import { type Random, seededRandom } from '../../support/random.ts';
import { bucketItems, type Item } from '../analytics/items.ts';
import { createAgents, timedWrite } from '../analytics/seed.ts';
import type { BenchAgent } from '../analytics/traces.ts';
import { type BenchAccount, type BenchService, serviceDb, signUp } from '../service.ts';
import { stopwatch } from '../stats.ts';

/** The plan of a seeded tenant: its retention holds the seeded days. */
const PLAN = 'pro';
export const SEEDED_DAYS = 30;
/** The tenant: 5% of traces in error, sessions of 1–20 traces. */
const ERROR_RATE = 0.05;
const SESSION_TRACES = { min: 1, max: 20 };
/** Conversations going on at once: a trace continues one of them or starts a new one. */
const OPEN_SESSIONS = 40;
/**
 * Traces whose root has not arrived or not ended: pending (listed apart, not yet in the rollups) for
 * their last TRACE_QUIET_MS, then closed by the closing job (listed and counted by status).
 */
const PENDING_RATE = 0.002;
const USERS = 5000;
const TOOLS = [
  'search',
  'orders.lookup',
  'calendar.create',
  'refund.issue',
  'crm.update',
  'weather',
  'sql.run',
  'email.send',
  'browser.open',
  'files.read',
  'translate',
  'calculator',
] as const;
const ERROR_TYPES = ['Timeout', 'RateLimited', 'ToolError', 'ValidationError'] as const;
const LOG_LEVELS = [
  ['info', 0.8],
  ['debug', 0.05],
  ['warn', 0.08],
  ['error', 0.07],
] as const;
const SIGNAL_NAMES = ['eval.quality', 'thumbs', 'latency.user'] as const;
/** One trace in ten carries the tag; every trace names its customer's plan in its metadata. */
const TAGGED_RATE = 0.1;
const CUSTOMER_PLANS = ['free', 'team', 'enterprise'] as const;
/** One log and one signal per this many traces; one alert per ALERT_EVERY traces. */
const TIMELINE_EVERY = 10;
const ALERT_EVERY = 500;
/** Sessions whose traces (their contributions and spans) are stored whole, for the session and sessionId reads. */
export const SAMPLED_SESSIONS = 40;

/** What the bench asks the lists for, known from the seeding. */
export interface TenantFacts {
  traces: number;
  errors: number;
  pending: number;
  sessions: number;
  /** Traces per agent and per user, to pick busy ones. */
  tracesOfAgent: Map<string, number>;
  tracesOfUser: Map<string, number>;
  sampledSessions: string[];
  /** An alert, to read by id: the floor every request pays (authentication, rate limit, one item). */
  alertId: string;
  items: number;
  seedSeconds: number;
}

const hex32 = (random: Random) => ((random.next() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
const traceIdOf = (random: Random) => hex32(random) + hex32(random) + hex32(random) + hex32(random);

interface OpenSession {
  id: string;
  userId: string;
  agent: BenchAgent;
  left: number;
}

/** A finished (or, rarely, pending) agent run as the worker would summarise it. */
function summaryOf(random: Random, session: OpenSession, startTimeMs: number): TraceSummary {
  const agent = session.agent;
  const model = random.pick(agent.models);
  const inputTokens = random.int(200, 8000);
  const outputTokens = random.int(20, 1500);
  const durationMs = Math.round(random.logUniform(80, 30_000));
  const failed = random.chance(ERROR_RATE);
  const complete = !random.chance(PENDING_RATE);
  const tools = random.shuffle(TOOLS).slice(0, random.int(0, 3)).sort();
  return {
    traceId: traceIdOf(random),
    agentId: agent.id,
    agentName: agent.name,
    name: agent.task,
    rootSpanId: hex32(random),
    status: failed ? 'error' : 'ok',
    startTimeMs,
    endTimeMs: complete ? startTimeMs + durationMs : null,
    durationMs: complete ? durationMs : null,
    spanCount: 2 + tools.length,
    errorCount: failed ? 1 : 0,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cost: estimateCost(model, { inputTokens, outputTokens, cachedInputTokens: null }) ?? 0,
    model,
    models: [model],
    toolNames: tools,
    errorTypes: failed ? [random.pick(ERROR_TYPES)] : [],
    tags: random.chance(TAGGED_RATE) ? ['vip'] : [],
    metadata: { plan: random.pick(CUSTOMER_PLANS) },
    sessionId: session.id,
    userId: session.userId,
    experimentId: null,
    variant: null,
    complete,
    closedAtMs: null,
  };
}

/** The spans of a trace, so that a session's view can read each trace's input and output. */
function spansOfTrace(t: TraceSummary): StoredSpan[] {
  const base = {
    traceId: t.traceId,
    agentName: t.agentName,
    agentNameFromService: false,
    agentId: t.agentId,
    statusMessage: null,
    errorType: null,
    provider: null,
    operation: null,
    cachedInputTokens: null,
    cost: null,
    costEstimated: false,
    toolName: null,
    sessionId: t.sessionId,
    userId: t.userId,
    experimentId: null,
    variant: null,
    reasoningTokens: null,
    tags: [],
    metadata: {},
    attributes: {},
    events: [],
  };
  return [
    {
      ...base,
      spanId: 'root',
      parentSpanId: null,
      name: t.name,
      kind: 'agent',
      startTimeMs: t.startTimeMs,
      endTimeMs: t.endTimeMs,
      durationMs: t.durationMs,
      status: t.status,
      model: null,
      inputTokens: null,
      outputTokens: null,
      input: `The user asks about ${t.traceId}`,
      output: `Here is what I found about ${t.traceId}.`,
    },
    {
      ...base,
      spanId: 'llm',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      startTimeMs: t.startTimeMs,
      endTimeMs: t.startTimeMs + 10,
      durationMs: 10,
      status: 'ok',
      model: t.model,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      input: null,
      output: null,
    },
  ];
}

/**
 * A new account on the pro plan (an API key, a user who can sign in again), its agents, and its
 * history seeded straight into the running service's table (seedTenant): SEEDED_DAYS days ending now.
 */
export async function seedBenchTenant(
  service: BenchService,
  plan: { traces: number; agents: number; writers: number; seed: number },
  progress: (line: string) => void,
): Promise<{ account: BenchAccount; agents: BenchAgent[]; facts: TenantFacts }> {
  const account = await signUp(service, PLAN);
  const db = serviceDb();
  const endMs = bucketStart(Date.now(), 'minute');
  const agents = await createAgents(db, account.tenantId, plan.agents);
  progress(`seeding ${plan.traces.toLocaleString('en-US')} traces over ${SEEDED_DAYS} days, ${plan.agents} agents, ${plan.writers} batch writes in flight`);
  const expiresAt = epochSeconds(new Date()) + PLANS[PLAN].features.retention * (BUCKET_MS.day / 1000);
  const facts = await seedTenant(
    db,
    { tenantId: account.tenantId, agents, traces: plan.traces, startMs: endMs - SEEDED_DAYS * BUCKET_MS.day, endMs, writers: plan.writers, expiresAt },
    seededRandom(plan.seed),
    progress,
  );
  return { account, agents, facts };
}

/**
 * Seeds a tenant straight into the table, one UTC day at a time, with the items the service itself
 * writes (the stores' item builders): the trace summaries (state, agent and user index entries, alert
 * marks on failed ones), every rollup bucket of the finished traces, one log and one signal per ten
 * traces, one alert per 500, the sessions' figures and index entries, and for SAMPLED_SESSIONS
 * sessions their traces' contributions and spans (what the session reads open). `writers`
 * BatchWriteItem calls in flight.
 */
async function seedTenant(
  db: Db,
  plan: { tenantId: string; agents: readonly BenchAgent[]; traces: number; startMs: number; endMs: number; writers: number; expiresAt: number },
  random: Random,
  progress: (line: string) => void,
): Promise<TenantFacts> {
  const elapsed = stopwatch();
  const { tenantId, expiresAt } = plan;
  const facts: TenantFacts = {
    traces: 0,
    errors: 0,
    pending: 0,
    sessions: 0,
    tracesOfAgent: new Map(),
    tracesOfUser: new Map(),
    sampledSessions: [],
    alertId: '',
    items: 0,
    seedSeconds: 0,
  };
  const sessions = new Map<string, TraceSummary[]>();
  const sampled = new Set<string>();
  const open: OpenSession[] = [];
  let sessionCount = 0;
  const write = async (items: Item[]) => {
    await timedWrite(db, items, plan.writers);
    facts.items += items.length;
  };
  const minutes = (plan.endMs - plan.startMs) / BUCKET_MS.minute;
  let day: TraceSummary[] = [];
  const currentHourMs = bucketStart(plan.endMs - 1, 'hour');
  const flushDay = async () => {
    if (day.length === 0) return;
    const items: Item[] = [];
    const spans: StoredSpan[] = [];
    for (const [i, t] of day.entries()) {
      const item = summaryItem(tenantId, t, 1, expiresAt);
      items.push(t.status === 'error' ? { ...item, alertTypes: new Set(['error']) } : item);
      if (i % TIMELINE_EVERY === 0) items.push(...timelineItems(random, tenantId, t, expiresAt));
      if ((facts.traces - day.length + i) % ALERT_EVERY === 0) {
        const alert = alertOf(random, tenantId, t);
        facts.alertId ||= alert.id;
        items.push(alertItem(alert));
      }
      if (t.sessionId && sampled.has(t.sessionId)) {
        items.push(sessionTraceItem(tenantId, { ...t, sessionId: t.sessionId }, 1, expiresAt));
        spans.push(...spansOfTrace(t));
      }
    }
    // The current hour is in its minute buckets only: the compaction recomputes an hour (and its day) once it is over.
    const finished = day.filter((t) => t.complete || t.closedAtMs !== null);
    const ctx = { tenantId, revision: 1, expiresAt };
    const compacted = bucketItems(
      ctx,
      finished.filter((t) => t.startTimeMs < currentHourMs),
    );
    const current = bucketItems(
      ctx,
      finished.filter((t) => t.startTimeMs >= currentHourMs),
    );
    await write([...items, ...compacted.minute, ...compacted.hour, ...compacted.day, ...current.minute]);
    await tracesRepository(db).putSpans(tenantId, spans, expiresAt, 1);
    progress(`seeded ${facts.traces.toLocaleString('en-US')} of ${plan.traces.toLocaleString('en-US')} traces (${Math.round(elapsed().seconds)} s)`);
    day = [];
  };

  for (let m = 0; m < minutes; m++) {
    const minuteStartMs = plan.startMs + m * BUCKET_MS.minute;
    if (minuteStartMs % BUCKET_MS.day === 0) await flushDay();
    const inMinute = Math.floor(((m + 1) * plan.traces) / minutes) - Math.floor((m * plan.traces) / minutes);
    for (let i = 0; i < inMinute; i++) {
      while (open.length < OPEN_SESSIONS) {
        const id = `sess-${++sessionCount}`;
        if (sessionCount % Math.max(1, Math.floor(plan.traces / 10 / SAMPLED_SESSIONS)) === 0 && sampled.size < SAMPLED_SESSIONS) sampled.add(id);
        open.push({ id, userId: `user-${random.int(1, USERS)}`, agent: random.pick(plan.agents), left: random.int(SESSION_TRACES.min, SESSION_TRACES.max) });
      }
      const at = random.below(open.length);
      const session = open[at]!;
      const trace = summaryOf(random, session, minuteStartMs + random.int(0, BUCKET_MS.minute - 1));
      if (!trace.complete && trace.startTimeMs + TRACE_QUIET_MS < plan.endMs) trace.closedAtMs = trace.startTimeMs + TRACE_QUIET_MS;
      if (--session.left === 0) open.splice(at, 1);
      day.push(trace);
      sessions.set(session.id, [...(sessions.get(session.id) ?? []), trace]);
      facts.traces++;
      if (trace.status === 'error') facts.errors++;
      if (!trace.complete && trace.closedAtMs === null) facts.pending++;
      facts.tracesOfAgent.set(trace.agentId!, (facts.tracesOfAgent.get(trace.agentId!) ?? 0) + 1);
      facts.tracesOfUser.set(trace.userId!, (facts.tracesOfUser.get(trace.userId!) ?? 0) + 1);
    }
  }
  await flushDay();

  progress(`seeding the ${sessions.size.toLocaleString('en-US')} sessions' figures and index entries`);
  const sessionItems = [...sessions].flatMap(([id, traces]) => {
    const figures = sessionFigures(id, traces);
    return [sessionItem(tenantId, { ...figures, version: 1 }, expiresAt), sessionIndexItem(tenantId, figures, 1, expiresAt)];
  });
  await write(sessionItems);
  await write([facetsItem(tenantId, plan.agents)]);
  // The current hour is dirty, as the ingest worker leaves it from its first minute bucket on: reads take its minutes.
  await rollupsRepository(db).markDirty(tenantId, currentHourMs, expiresAt);
  facts.sessions = sessions.size;
  facts.sampledSessions = [...sampled];
  facts.seedSeconds = elapsed().seconds;
  return facts;
}

function timelineItems(random: Random, tenantId: string, t: TraceSummary, expiresAt: number): Item[] {
  let draw = random.next();
  const level = LOG_LEVELS.find(([, share]) => (draw -= share) < 0)?.[0] ?? 'info';
  const at = t.startTimeMs + 5;
  const common = { traceId: t.traceId, spanId: 'root', agentId: t.agentId, agentName: t.agentName, timestampMs: at, timestamp: new Date(at).toISOString() };
  const log: StoredLog = { ...common, id: `log_${t.traceId}`, level, message: `step finished for ${t.traceId}`, attributes: {} };
  const signal: StoredSignal = { ...common, id: `sig_${t.traceId}`, signalName: random.pick(SIGNAL_NAMES), value: random.next(), metadata: {} };
  return [timelineItem(tenantId, 'LOG', log, expiresAt), timelineItem(tenantId, 'SIGNAL', signal, expiresAt)];
}

function alertOf(random: Random, tenantId: string, t: TraceSummary): AlertRecord {
  const at = new Date(t.startTimeMs).toISOString();
  const status = random.chance(0.05) ? 'open' : random.chance(0.05) ? 'acknowledged' : 'resolved';
  return {
    id: `alr_${t.traceId.slice(0, 16)}`,
    tenantId,
    agentId: t.agentId!,
    agentName: t.agentName!,
    type: random.pick(['error', 'highDuration', 'highCost']),
    category: 'threshold',
    severity: random.pick(['warning', 'high']),
    status,
    message: `seen on ${t.traceId}`,
    value: null,
    threshold: null,
    reasoning: null,
    occurrenceCount: random.int(1, 9),
    firstSeenAt: at,
    lastSeenAt: at,
    traceIds: [t.traceId],
    acknowledgedAt: null,
    resolvedAt: status === 'resolved' ? at : null,
    createdAt: at,
    updatedAt: at,
    occurrenceKeys: [],
    version: 1,
  };
}

function facetsItem(tenantId: string, agents: readonly BenchAgent[]): Item {
  return {
    ...keys.facets(tenantId),
    models: new Set(agents.flatMap((a) => a.models)),
    toolNames: new Set(TOOLS),
    errorTypes: new Set(ERROR_TYPES),
    traceNames: new Set(agents.map((a) => a.task)),
    tags: new Set(['vip']),
    statuses: new Set(['ok', 'error']),
    kinds: new Set(['agent', 'llm']),
    signalNames: new Set(SIGNAL_NAMES),
  };
}
