import type { PlanKey } from '#shared/domain/plans/plans.ts';
import { type NativeSpanInput, type SentTrace, type SpanBatch, seededRandom, spanBatches } from '../ingest/traces.ts';

/**
 * The recorded workload `npm run cost` replays: one tenant's agents for `minutes` minutes of traffic
 * at about a million spans a day, the agent traces of the ingest bench (an agent root over LLM,
 * tool and retrieval spans, 4–6 spans, a few slow or failing), sent the way SDKs send them, with
 * alerting and LLM judging configured on some agents, and a dashboard open on the service.
 */
export interface Workload {
  /** The account's plan: it sets each trace's TTL (its retention). */
  plan: PlanKey;
  minutes: number;
  tracesPerMinute: number;
  averageSpansPerTrace: number;
  /** Traces that are slow or have a failing tool, half each: they raise alerts. */
  anomalyRate: number;
  /** How the traces reach the API: the share of traces each way, and the most spans it puts in one request. */
  exporters: ReadonlyArray<{ name: string; traceShare: number; maxSpansPerRequest: number }>;
  /** Agents with LLM judging on (all four types, every trace); the others get threshold alerts only. */
  judgedAgents: readonly string[];
  /** Agents whose error alerts also go out by SMS; every agent's alerts go to the on-call e-mail. */
  smsAgents: readonly string[];
  contacts: { email: string; sms: string };
  dashboard: { viewsPerMinute: number; traceListWindowMinutes: number };
  seed: number;
}

export const WORKLOAD: Workload = {
  plan: 'starter', // 30-day retention
  minutes: 15,
  // About 1,000,000 spans a day.
  tracesPerMinute: 140,
  averageSpansPerTrace: 5,
  anomalyRate: 0.03,
  exporters: [
    { name: 'batching exporter (OpenTelemetry BatchSpanProcessor, SDK batch)', traceShare: 0.7, maxSpansPerRequest: 100 },
    { name: 'one request per finished run (serverless agents)', traceShare: 0.3, maxSpansPerRequest: 6 },
  ],
  judgedAgents: ['support-bot', 'code-reviewer'],
  smsAgents: ['support-bot'],
  contacts: { email: 'oncall@example.com', sms: '+14155550100' },
  // A dashboard refreshing once a minute: the trace list of the last hour and its newest trace, analytics, agents, alerts.
  dashboard: { viewsPerMinute: 1, traceListWindowMinutes: 60 },
  seed: 20_260_303,
};

/** One minute of the workload: its requests, and the dashboard views made after them. */
export interface Minute {
  batches: SpanBatch[];
  views: number;
}

/** The spans of one request: whole traces, never split. */
function batchOf(traces: readonly NativeSpanInput[][]): SpanBatch {
  const spans = traces.flat();
  return {
    body: JSON.stringify({ spans }),
    spanCount: spans.length,
    traces: traces.map((t) => ({ traceId: t[0]!.traceId, spanCount: t.length }) satisfies SentTrace),
  };
}

/** Whole traces packed into requests of at most `maxSpans` spans each. */
function pack(traces: readonly NativeSpanInput[][], maxSpans: number): SpanBatch[] {
  const batches: SpanBatch[] = [];
  let current: NativeSpanInput[][] = [];
  let spans = 0;
  for (const trace of traces) {
    if (current.length > 0 && spans + trace.length > maxSpans) {
      batches.push(batchOf(current));
      current = [];
      spans = 0;
    }
    current.push(trace);
    spans += trace.length;
  }
  if (current.length > 0) batches.push(batchOf(current));
  return batches;
}

function tracesOf(spans: readonly NativeSpanInput[]): NativeSpanInput[][] {
  const byTrace = new Map<string, NativeSpanInput[]>();
  for (const span of spans) (byTrace.get(span.traceId) ?? byTrace.set(span.traceId, []).get(span.traceId)!).push(span);
  return [...byTrace.values()];
}

/**
 * The workload's minutes, ending at `endMs`: each minute's traces start within that minute (so that
 * the analytics rollups see the workload's density) and go to the exporters by their shares.
 */
export function minutesOf(workload: Workload, endMs: number): Minute[] {
  const random = seededRandom(workload.seed);
  return Array.from({ length: workload.minutes }, (_, i) => {
    const minuteEndMs = endMs - (workload.minutes - 1 - i) * 60_000;
    const spansThisMinute = workload.tracesPerMinute * workload.averageSpansPerTrace;
    const [generated] = spanBatches(random, 1, spansThisMinute, minuteEndMs, workload.anomalyRate);
    const traces = tracesOf((JSON.parse(generated!.body) as { spans: NativeSpanInput[] }).spans);
    const shares = workload.exporters.map((exporter) => ({ exporter, traces: [] as NativeSpanInput[][] }));
    for (const trace of traces) {
      let draw = random();
      const share = shares.find(({ exporter }) => (draw -= exporter.traceShare) < 0) ?? shares[shares.length - 1]!;
      share.traces.push(trace);
    }
    return { batches: shares.flatMap(({ exporter, traces: t }) => pack(t, exporter.maxSpansPerRequest)), views: workload.dashboard.viewsPerMinute };
  });
}

/** The agents the workload's traces name. */
export const agentNamesOf = (minutes: readonly Minute[]): string[] =>
  [
    ...new Set(minutes.flatMap((m) => m.batches.flatMap((b) => (JSON.parse(b.body) as { spans: NativeSpanInput[] }).spans.map((s) => s.agentName ?? '')))),
  ].filter(Boolean);

/** One dashboard view at `now`: the trace list first (the view then opens its newest trace), then the rest. */
export function dashboardView(workload: Workload, now: Date): { traceList: string; others: string[] } {
  const ago = (minutes: number) => encodeURIComponent(new Date(now.getTime() - minutes * 60_000).toISOString());
  return {
    traceList: `/spans/traces?limit=50&startDate=${ago(workload.dashboard.traceListWindowMinutes)}`,
    others: [
      `/analytics/metrics?startDate=${ago(24 * 60)}`,
      `/analytics/traces/requests-over-time?startDate=${ago(60)}`,
      '/agents',
      '/spans/alerts?limit=20',
      '/spans/alerts/summary',
    ],
  };
}

/** Each agent's alert configuration: on-call e-mail for every alert, SMS for some, LLM judging on some. */
export function alertConfigOf(workload: Workload, agentName: string): Record<string, unknown> {
  const sms = workload.smsAgents.includes(agentName);
  return {
    contacts: { email: [{ address: workload.contacts.email, enabled: true }], sms: sms ? [{ phoneNumber: workload.contacts.sms, enabled: true }] : [] },
    ...(sms ? { alertTypes: { error: { channels: ['email', 'sms'] } } } : {}),
    llmAnalysis: { enabled: workload.judgedAgents.includes(agentName) },
  };
}
