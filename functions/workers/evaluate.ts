import { bedrockJudge } from '#shared/adapters/judge-bedrock.ts';
import { sqsQueue } from '#shared/adapters/queue.ts';
import { config } from '#shared/config.ts';
import { type EvaluationSettings, evaluateTrace } from '#shared/domain/evaluation/evaluate.ts';
import { builtinJudge } from '#shared/domain/evaluation/heuristics/index.ts';
import { evaluationJobSchema } from '#shared/domain/evaluation/job-message.ts';
import type { Judge } from '#shared/domain/evaluation/judge.ts';
import { logger } from '#shared/observability/logger.ts';
import { count, dollars, METRIC } from '#shared/observability/metrics.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { evaluationUsageRepository } from '#shared/store/evaluation-usage.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { profilesRepository } from '#shared/store/profiles.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { signalsRepository } from '#shared/store/timeline.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { portsOf } from '#shared/wiring/ports.ts';
import { sqsBatchHandler } from '#shared/workers/sqs-batch.ts';

const configuredSettings: EvaluationSettings = { dailyBudget: config.evaluation.dailyBudget, maxInputTokens: config.evaluation.maxInputTokens };

const evaluatePorts = portsOf(
  {
    tenants: tenantsRepository,
    agents: agentsRepository,
    alerts: alertsRepository,
    traces: tracesRepository,
    signals: signalsRepository,
    evaluationUsage: evaluationUsageRepository,
    profiles: profilesRepository,
    experiments: experimentsRepository,
  },
  {
    queue: sqsQueue,
    judge: (): Judge => (config.evaluation.judge === 'bedrock' ? bedrockJudge({ modelId: config.evaluation.bedrockModelId }) : builtinJudge),
  },
);

/** Judges finished traces for the LLM-analysed alert types; a judge failure retries the record, then dead-letters it. */
export type EvaluatePorts = ReturnType<typeof evaluatePorts>;

export const evaluateHandler = (getPorts: () => EvaluatePorts = evaluatePorts, settings: EvaluationSettings = configuredSettings) =>
  sqsBatchHandler(async (record) => {
    const { store, judge, clock, ids, queue } = getPorts();
    const job = evaluationJobSchema.parse(JSON.parse(record.body));
    const result = await evaluateTrace(job, { store, judge, clock, ids, queue, settings });
    if (result.outcome === 'evaluated') {
      count(METRIC.judgeCalls, result.judgeCalls);
      dollars(METRIC.judgeCost, result.judgeCost);
      count(METRIC.alertsRaised, result.alertsRaised);
    }
    // Scores and outcomes only: the trace's content and the judge's reasoning stay out of the logs.
    logger[result.outcome === 'over-budget' ? 'warn' : 'info']('trace evaluation', {
      tenantId: job.tenantId,
      traceId: job.traceId,
      judge: judge.name,
      ...result,
    });
  });

export const handler = evaluateHandler();
