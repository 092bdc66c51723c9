import { createHash } from 'node:crypto';
import { type AlertConfig, LLM_ALERT_TYPES, type LlmAlertType } from '../alerts/config.ts';
import type { PlanFeatures } from '../plans/plans.ts';

/**
 * Whether a trace falls in the sample: a hash of its id, so every worker (and every redelivery)
 * decides the same, and a rate of 0.25 evaluates about a quarter of the traces.
 */
export function isSampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  const position = createHash('sha256').update(traceId).digest().readUInt32BE(0) / 2 ** 32;
  return position < rate;
}

/** The types the judge evaluates on a finished trace: none unless the plan includes evaluations, llmAnalysis is on and the trace is sampled. */
export function typesToEvaluate(features: Pick<PlanFeatures, 'evaluations'>, config: AlertConfig, traceId: string): LlmAlertType[] {
  const { llmAnalysis } = config;
  if (!features.evaluations || !llmAnalysis.enabled || !isSampled(traceId, llmAnalysis.samplingRate)) return [];
  return LLM_ALERT_TYPES.filter((type) => llmAnalysis.alertTypes[type].enabled);
}
