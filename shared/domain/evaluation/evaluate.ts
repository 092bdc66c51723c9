import { effectiveAlertConfig, type LlmAlertType } from '../alerts/config.ts';
import { raiseAlerts } from '../alerts/service.ts';
import { contentId } from '../content-id.ts';
import { recordExperimentObservations } from '../experiments/observations.ts';
import { PLANS } from '../plans/plans.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import { estimateCost, roundCost } from '../pricing/estimate.ts';
import { profileContext } from '../profiles/context.ts';
import type { StoredSignal } from '../spans/ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import type { EvaluationJob } from './job-message.ts';
import { type Judge, JudgeAnswerError, type JudgeUsage, type Verdict } from './judge.ts';
import { typesToEvaluate } from './policy.ts';
import { buildTrajectory, type Trajectory } from './trajectory.ts';

export interface EvaluationSettings {
  /** Traces a tenant may have judged per UTC day. */
  dailyBudget: number;
  /** The most of a trace the judge reads, in estimated tokens. */
  maxInputTokens: number;
}

export interface EvaluationDeps {
  store: Pick<Store, 'tenants' | 'agents' | 'alerts' | 'traces' | 'signals' | 'evaluationUsage' | 'profiles' | 'experiments'>;
  judge: Judge;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
  settings: EvaluationSettings;
}

export type EvaluationResult =
  | {
      outcome: 'evaluated';
      scores: Partial<Record<LlmAlertType, number>>;
      alerted: LlmAlertType[];
      /** Alerts the verdicts opened (an alert already open counts the occurrence instead). */
      alertsRaised: number;
      /** Types judged, one judge call each, and what they cost at list price (US dollars). */
      judgeCalls: number;
      judgeCost: number;
    }
  | { outcome: 'trace-gone' | 'not-evaluated' | 'already-evaluated' | 'over-budget' };

const DAY_SECONDS = 86_400;

const evaluationSignalName = (type: LlmAlertType): string => `eval.${type}`;
const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

interface Judged {
  type: LlmAlertType;
  verdict: Verdict;
  usage: JudgeUsage | null;
}

interface Failed {
  type: LlmAlertType;
  error: unknown;
  /** What the judge's model consumed before failing (an invalid answer is still paid for). */
  usage: JudgeUsage | null;
}

/**
 * Judges one finished trace for each LLM alert type its agent has on and that the trace has no
 * evaluation of yet: a score at or above the type's threshold raises an alert (the threshold alerts'
 * lifecycle, cooldown and notifications), and every verdict is kept as an `eval.<type>` signal on the
 * trace. The signals mark what is done, so a redelivered job, or the retry of one where the judge
 * failed for some types, judges only what is missing; a judge failure is thrown after the others are
 * recorded, so the queue retries the job and finally dead-letters it.
 */
export async function evaluateTrace(job: EvaluationJob, deps: EvaluationDeps): Promise<EvaluationResult> {
  const { tenantId, traceId } = job;
  const summary = await deps.store.traces.getSummary(tenantId, traceId);
  const [tenant, agent] = await Promise.all([
    deps.store.tenants.get(tenantId),
    summary?.agentId ? deps.store.agents.get(tenantId, summary.agentId) : undefined,
  ]);
  if (!summary || !tenant || !agent) return { outcome: 'trace-gone' };
  const plan = PLANS[tenant.subscription.plan].features;
  const config = effectiveAlertConfig(agent.alertConfig);
  const types = typesToEvaluate(plan, config, traceId);
  if (types.length === 0) return { outcome: 'not-evaluated' };
  const done = new Set((await deps.store.signals.list(tenantId, { traceId })).map((s) => s.signalName));
  const pending = types.filter((type) => !done.has(evaluationSignalName(type)));
  if (pending.length === 0) return { outcome: 'already-evaluated' };

  const now = deps.clock.now();
  if (!(await deps.store.evaluationUsage.claim(tenantId, dayOf(now), deps.settings.dailyBudget))) return { outcome: 'over-budget' };
  const [spans, learning, anomalies] = await Promise.all([
    deps.store.traces.spansOf(tenantId, traceId),
    deps.store.profiles.get(tenantId, agent.id),
    deps.store.profiles.anomaliesOf(tenantId, traceId),
  ]);
  const context = profileContext(learning, anomalies?.anomalies);
  const trajectory = buildTrajectory(summary, spans, deps.settings.maxInputTokens, context);
  const { judged, failed } = await judgeEach(pending, trajectory, deps.judge);
  await recordJudgeUsage(
    tenantId,
    dayOf(now),
    [...judged, ...failed].map((j) => j.usage),
    deps,
  );

  const thresholdOf = (type: LlmAlertType) => config.llmAnalysis.alertTypes[type].threshold;
  const alerting = judged.filter((j) => j.verdict.score >= thresholdOf(j.type));
  const at = summary.endTimeMs ?? summary.startTimeMs;
  const detections = alerting.map(({ type, verdict }) => ({
    type,
    traceId,
    spanId: null,
    value: verdict.score,
    threshold: thresholdOf(type),
    message: `trace "${summary.name}" judged ${verdict.label}`,
    reasoning: verdict.reasoning,
    occurredAtMs: at,
  }));
  const alertsRaised = await raiseAlerts(tenantId, agent, detections, deps);
  // After the alerts: a signal marks its type done, so a crash in between re-judges rather than losing an alert.
  const expiresAt = Math.floor(now.getTime() / 1000) + plan.retention * DAY_SECONDS;
  await storeEvaluations(tenantId, summary, judged, new Set(alerting.map((j) => j.type)), expiresAt, deps);

  if (failed.length > 0) {
    const reasons = failed.map((f) => `${f.type}: ${f.error instanceof Error ? `${f.error.name}: ${f.error.message}` : String(f.error)}`).join('; ');
    throw new AggregateError(
      failed.map((f) => f.error),
      `the judge failed for ${failed.length} of ${pending.length} types (${reasons})`,
    );
  }
  return {
    outcome: 'evaluated',
    scores: Object.fromEntries(judged.map((j) => [j.type, j.verdict.score])),
    alerted: alerting.map((j) => j.type),
    alertsRaised,
    judgeCalls: judged.length,
    judgeCost: roundCost(judged.reduce((total, j) => total + (j.usage ? costOf(j.usage) : 0), 0)),
  };
}

/** All types at once; one type failing does not lose the others' verdicts. */
async function judgeEach(types: readonly LlmAlertType[], trajectory: Trajectory, judge: Judge): Promise<{ judged: Judged[]; failed: Failed[] }> {
  const settled = await Promise.allSettled(types.map((type) => judge.judge(type, trajectory)));
  const judged: Judged[] = [];
  const failed: Failed[] = [];
  settled.forEach((result, i) => {
    const type = types[i]!;
    if (result.status === 'fulfilled') judged.push({ type, ...result.value });
    else failed.push({ type, error: result.reason, usage: result.reason instanceof JudgeAnswerError ? result.reason.usage : null });
  });
  return { judged, failed };
}

const costOf = (u: JudgeUsage): number => estimateCost(u.model, { inputTokens: u.inputTokens, outputTokens: u.outputTokens, cachedInputTokens: null }) ?? 0;

async function recordJudgeUsage(tenantId: string, day: string, usages: ReadonlyArray<JudgeUsage | null>, deps: EvaluationDeps): Promise<void> {
  const used = usages.filter((u) => u !== null);
  if (used.length === 0) return;
  const sum = (pick: (u: JudgeUsage) => number) => used.reduce((total, u) => total + pick(u), 0);
  await deps.store.evaluationUsage.addJudgeUsage(tenantId, day, {
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    cost: roundCost(sum(costOf)),
  });
}

/**
 * One signal per trace and type, keyed by both, so a re-evaluation replaces rather than adds; counted
 * toward the trace's experiment variant as the ingest worker counts any other signal (an observation
 * keyed by the signal's id, so replaced as well).
 */
async function storeEvaluations(
  tenantId: string,
  summary: TraceSummary,
  judged: readonly Judged[],
  alerted: ReadonlySet<LlmAlertType>,
  expiresAt: number,
  deps: EvaluationDeps,
): Promise<void> {
  if (judged.length === 0) return;
  const timestampMs = summary.endTimeMs ?? summary.startTimeMs;
  const signals: StoredSignal[] = judged.map(({ type, verdict, usage }) => ({
    id: contentId('sig', ['evaluation', summary.traceId, type]),
    signalName: evaluationSignalName(type),
    value: verdict.score,
    traceId: summary.traceId,
    spanId: null,
    agentId: summary.agentId,
    agentName: summary.agentName,
    metadata: {
      label: verdict.label,
      reasoning: verdict.reasoning,
      alerted: alerted.has(type),
      judge: deps.judge.name,
      ...(usage && { judgeInputTokens: usage.inputTokens, judgeOutputTokens: usage.outputTokens, judgeCost: costOf(usage) }),
    },
    timestampMs,
    timestamp: new Date(timestampMs).toISOString(),
  }));
  await deps.store.signals.put(tenantId, signals, expiresAt);
  await recordExperimentObservations(tenantId, [], signals, expiresAt, deps.store);
  await deps.store.traces.addFacets(tenantId, { signalNames: signals.map((s) => s.signalName) });
}
