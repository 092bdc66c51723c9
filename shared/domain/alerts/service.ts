import * as z from 'zod/mini';
import { agentId } from '../../schemas/common.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { changeStatus } from '../lifecycle.ts';
import type { AlertNotificationJob } from '../notifications/messages.ts';
import type { PageInput } from '../paging/page.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { Store } from '../store.ts';
import {
  type AlertConfigPatch,
  type AlertType,
  durationPastTimeout,
  effectiveAlertConfig,
  LLM_ALERT_TYPES,
  merge,
  optionsOf,
  SEVERITIES,
  THRESHOLD_ALERT_TYPES,
} from './config.ts';
import type { Detection } from './detect.ts';
import { ALERT_STATUSES, type AlertAction, transition } from './lifecycle.ts';
import type { AlertRecord, Occurrence } from './ports.ts';

export interface AlertDeps {
  store: Pick<Store, 'alerts' | 'agents'>;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
}

export const ALERT_TYPES = [...THRESHOLD_ALERT_TYPES, ...LLM_ALERT_TYPES] as const;

/** An alert as the API shows it (without the bookkeeping fields). */
export function alertView(a: AlertRecord) {
  const { occurrenceKeys: _keys, version: _version, tenantId: _tenant, ...view } = a;
  return view;
}

/**
 * Alerts named by their agents' current names: an alert keeps the name its agent had when it was raised,
 * and an agent renamed since is still the agent they are about. An agent deleted since keeps its old name.
 * One read of the agents the alerts name.
 */
async function withCurrentAgentNames<T extends { agentId: string; agentName: string }>(
  tenantId: string,
  alerts: readonly T[],
  deps: Pick<AlertDeps, 'store'>,
): Promise<T[]> {
  const agentIds = [...new Set(alerts.map((a) => a.agentId))];
  if (agentIds.length === 0) return [...alerts];
  const names = new Map((await deps.store.agents.getMany(tenantId, agentIds)).map((agent) => [agent.id, agent.name]));
  return alerts.map((a) => ({ ...a, agentName: names.get(a.agentId) ?? a.agentName }));
}

const shownAlert = async (tenantId: string, alert: AlertRecord, deps: Pick<AlertDeps, 'store'>) =>
  (await withCurrentAgentNames(tenantId, [alertView(alert)], deps))[0]!;

export async function updateAlertConfig(tenantId: string, agentId: string, patch: AlertConfigPatch, deps: { store: Pick<Store, 'agents'>; clock: Clock }) {
  const agent = await deps.store.agents.get(tenantId, agentId);
  if (!agent) throw new NotFoundError('Agent');
  const merged = merge<AlertConfigPatch>(agent.alertConfig ?? {}, patch);
  // The patch alone may set one of the two: the configuration it makes is what must make sense.
  const durationProblem = durationPastTimeout(effectiveAlertConfig(merged));
  if (durationProblem) throw new ValidationError(`thresholds.duration: ${durationProblem}`);
  const updated = await deps.store.agents.setAlertConfig(tenantId, agentId, merged, deps.clock.now());
  if (!updated) throw new NotFoundError('Agent');
  return effectiveAlertConfig(updated.alertConfig);
}

export const alertListFilters = z.object({
  agentId: z.optional(agentId),
  status: z.optional(z.enum(ALERT_STATUSES)),
  type: z.optional(z.enum(ALERT_TYPES)),
  severity: z.optional(z.enum(SEVERITIES)),
});

export async function listAlerts(
  tenantId: string,
  q: z.infer<typeof alertListFilters> & { startDate?: Date; endDate?: Date },
  page: PageInput,
  deps: Pick<AlertDeps, 'store'>,
) {
  if (q.agentId && !(await deps.store.agents.get(tenantId, q.agentId))) throw new NotFoundError('Agent');
  const query = { agentId: q.agentId, status: q.status, type: q.type, severity: q.severity, startMs: q.startDate?.getTime(), endMs: q.endDate?.getTime() };
  const [result, total] = await Promise.all([deps.store.alerts.page(tenantId, query, page), deps.store.alerts.count(tenantId, query)]);
  return { ...result, items: await withCurrentAgentNames(tenantId, result.items.map(alertView), deps), total: total.count, totalExact: total.exact };
}

/**
 * The alerts of each status the summary reads at most, those with the latest occurrences: a bounded
 * read, however many alerts the tenant's history holds; past it the counts are of the latest alerts
 * and say so (`totalExact: false`).
 */
export const SUMMARY_ALERTS_READ = 5000;

/** Per agent: how many alerts in each status, type and severity, of the latest SUMMARY_ALERTS_READ of each status. */
export async function alertSummary(tenantId: string, q: { agentId?: string; startDate?: Date; endDate?: Date }, deps: Pick<AlertDeps, 'store'>) {
  if (q.agentId && !(await deps.store.agents.get(tenantId, q.agentId))) throw new NotFoundError('Agent');
  const { alerts, complete } = await deps.store.alerts.recent(
    tenantId,
    { agentId: q.agentId, startMs: q.startDate?.getTime(), endMs: q.endDate?.getTime() },
    SUMMARY_ALERTS_READ,
  );
  const byAgent = new Map<
    string,
    { agentId: string; agentName: string; total: number; byStatus: Record<string, number>; byType: Record<string, number>; bySeverity: Record<string, number> }
  >();
  const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  for (const a of alerts) {
    const entry = byAgent.get(a.agentId) ?? {
      agentId: a.agentId,
      agentName: a.agentName,
      total: 0,
      byStatus: Object.fromEntries(ALERT_STATUSES.map((s) => [s, 0])),
      byType: {},
      bySeverity: Object.fromEntries(SEVERITIES.map((s) => [s, 0])),
    };
    entry.total += 1;
    bump(entry.byStatus, a.status);
    bump(entry.byType, a.type);
    bump(entry.bySeverity, a.severity);
    byAgent.set(a.agentId, entry);
  }
  const agents = (await withCurrentAgentNames(tenantId, [...byAgent.values()], deps)).sort(
    (x, y) => y.total - x.total || x.agentName.localeCompare(y.agentName),
  );
  return { total: alerts.length, open: alerts.filter((a) => a.status === 'open').length, totalExact: complete, agents };
}

export async function getAlert(tenantId: string, alertId: string, deps: Pick<AlertDeps, 'store'>) {
  const alert = await deps.store.alerts.get(tenantId, alertId);
  if (!alert) throw new NotFoundError('Alert');
  return shownAlert(tenantId, alert, deps);
}

/** acknowledge / reopen / resolve, with the spec's transitions; a concurrent change is retried. */
export async function changeAlertStatus(tenantId: string, alertId: string, action: AlertAction, deps: Pick<AlertDeps, 'store' | 'clock'>) {
  return changeStatus(`alert ${alertId}`, async () => {
    const current = await deps.store.alerts.get(tenantId, alertId, true);
    if (!current) throw new NotFoundError('Alert');
    const result = await deps.store.alerts.setStatus(current, transition(current.status, action), deps.clock.now());
    if (result === 'changed') return undefined;
    if ('activeAlertId' in result) {
      throw new ValidationError(`Cannot reopen: a newer ${current.type} alert of this agent is active (${result.activeAlertId}); see it instead`, {
        activeAlertId: result.activeAlertId,
      });
    }
    return shownAlert(tenantId, result, deps);
  });
}

const occurrenceKey = (d: { type: string; traceId: string; spanId: string | null }) => `${d.type}:${d.traceId}:${d.spanId ?? '-'}`;

/**
 * Records detections as alert occurrences, marks each trace with the type (the trace list's `hasAlert`
 * filter reads the mark) and queues a notification job for each. A detection seen again (a
 * redelivered message) counts once, but its job is queued again: the notify worker de-duplicates
 * jobs, so a crash between counting and queueing cannot lose the notification.
 * Answers how many alerts the detections opened (the others recurred on an open alert).
 */
export async function raiseAlerts(
  tenantId: string,
  agent: { id: string; name: string; alertConfig?: AlertConfigPatch },
  detections: ReadonlyArray<Detection | (Omit<Detection, 'type'> & { type: AlertType; reasoning?: string })>,
  deps: AlertDeps & { store: Pick<Store, 'traces'> },
): Promise<number> {
  if (detections.length === 0) return 0;
  const config = effectiveAlertConfig(agent.alertConfig);
  const jobs: AlertNotificationJob[] = [];
  let opened = 0;
  for (const d of detections) {
    const options = optionsOf(config, d.type);
    const occurrence: Occurrence = {
      agentId: agent.id,
      agentName: agent.name,
      type: d.type,
      category: (LLM_ALERT_TYPES as readonly string[]).includes(d.type) ? 'llm' : 'threshold',
      severity: options.severity,
      message: d.message,
      value: d.value,
      threshold: d.threshold,
      reasoning: 'reasoning' in d ? (d.reasoning ?? null) : null,
      traceId: d.traceId,
      key: occurrenceKey(d),
      at: new Date(d.occurredAtMs),
      recordedAt: deps.clock.now(),
    };
    const { alert, outcome } = await deps.store.alerts.recordOccurrence(tenantId, occurrence, () => deps.ids.next('alr'));
    if (outcome === 'opened') opened++;
    await deps.store.traces.markAlerted(tenantId, d.traceId, d.type);
    jobs.push({ kind: 'alert-notification', tenantId, alertId: alert.id, occurrenceKey: occurrence.key });
  }
  await deps.queue.send('notify', jobs);
  return opened;
}
