import type * as z from 'zod/mini';
import type { logListQuery } from '../../schemas/routes/logs.ts';
import type { signalListQuery, signalSummaryQuery } from '../../schemas/routes/signals.ts';
import type { traceListQuery } from '../../schemas/routes/spans.ts';
import { NotFoundError } from '../errors.ts';
import type { Store } from '../store.ts';
import { logView, orderSpans, signalView, spanView, summarizeSignals, traceView } from './views.ts';

/** The repositories one read takes. */
type ReadStore<K extends 'agents' | 'traces' | 'signals' | 'logs'> = Pick<Store, K>;

const DAY_MS = 86_400_000;
/** The signal summary looks at the last 7 days unless told otherwise (like the analytics). */
const DEFAULT_SUMMARY_DAYS = 7;

/** An agentId filter must name one of the tenant's agents; another tenant's id is as missing as an unknown one. */
export async function assertAgent(store: ReadStore<'agents'>, tenantId: string, agentId: string | undefined): Promise<void> {
  if (agentId && !(await store.agents.get(tenantId, agentId))) throw new NotFoundError('Agent');
}

const ms = (d: Date | undefined) => d?.getTime();

export async function listTraces(store: ReadStore<'agents' | 'traces'>, tenantId: string, q: z.infer<typeof traceListQuery>) {
  await assertAgent(store, tenantId, q.agentId);
  const summaries = await store.traces.listSummaries(tenantId, {
    agentId: q.agentId,
    startMs: ms(q.startDate),
    endMs: ms(q.endDate),
    status: q.status,
    model: q.model,
    sessionId: q.sessionId,
  });
  return summaries.map(traceView);
}

export async function getTrace(store: ReadStore<'traces'>, tenantId: string, traceId: string) {
  const { summary, spans, signals, logs, anomalies } = await store.traces.readTrace(tenantId, traceId);
  if (!summary) throw new NotFoundError('Trace');
  return {
    ...traceView(summary),
    anomalies: anomalies?.anomalies ?? [],
    spans: orderSpans(spans).map(({ span, depth }) => spanView(span, depth)),
    signals: signals.map(signalView),
    logs: logs.map(logView),
  };
}

export async function filterOptions(store: ReadStore<'agents' | 'traces'>, tenantId: string) {
  const [facets, agents] = await Promise.all([store.traces.facets(tenantId), store.agents.list(tenantId)]);
  return {
    agents: agents.map((a) => ({ id: a.id, name: a.name })),
    models: facets.models,
    statuses: facets.statuses,
    spanKinds: facets.kinds,
    toolNames: facets.toolNames,
    signalNames: facets.signalNames,
  };
}

export async function listSignals(store: ReadStore<'agents' | 'signals'>, tenantId: string, q: z.infer<typeof signalListQuery>) {
  await assertAgent(store, tenantId, q.agentId);
  const signals = await store.signals.list(tenantId, {
    agentId: q.agentId,
    traceId: q.traceId,
    startMs: ms(q.startDate),
    endMs: ms(q.endDate),
    ...(q.signalName ? { equals: { signalName: q.signalName } } : {}),
  });
  return signals.map(signalView);
}

export async function signalsOfTrace(store: ReadStore<'signals' | 'traces'>, tenantId: string, traceId: string) {
  const signals = await store.signals.list(tenantId, { traceId });
  if (signals.length === 0 && !(await store.traces.getSummary(tenantId, traceId))) throw new NotFoundError('Trace');
  return signals.map(signalView);
}

export async function signalSummary(store: ReadStore<'agents' | 'signals'>, tenantId: string, q: z.infer<typeof signalSummaryQuery>, now: Date) {
  await assertAgent(store, tenantId, q.agentId);
  const end = q.endDate ?? now;
  const start = q.startDate ?? new Date(end.getTime() - DEFAULT_SUMMARY_DAYS * DAY_MS);
  const signals = await store.signals.list(tenantId, {
    agentId: q.agentId,
    startMs: start.getTime(),
    endMs: end.getTime(),
    ...(q.signalName ? { equals: { signalName: q.signalName } } : {}),
  });
  return { startDate: start.toISOString(), endDate: end.toISOString(), groups: summarizeSignals(signals) };
}

export async function listLogs(store: ReadStore<'agents' | 'logs'>, tenantId: string, q: z.infer<typeof logListQuery>) {
  await assertAgent(store, tenantId, q.agentId);
  const logs = await store.logs.list(tenantId, {
    agentId: q.agentId,
    traceId: q.traceId,
    startMs: ms(q.startDate),
    endMs: ms(q.endDate),
    equals: { ...(q.level && { level: q.level }), ...(q.eventName && { eventName: q.eventName }) },
  });
  return logs.map(logView);
}
