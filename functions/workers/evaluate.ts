import { defaultPorts, type Ports } from '../../shared/adapters/ports.ts';
import { config } from '../../shared/config.ts';
import { evaluateTrace, type EvaluationSettings } from '../../shared/domain/evaluation/evaluate.ts';
import { evaluationJobSchema } from '../../shared/domain/evaluation/jobs.ts';
import { logger } from '../../shared/http/logger.ts';
import { sqsBatchHandler } from '../../shared/workers/sqs-batch.ts';

const configuredSettings: EvaluationSettings = { dailyBudget: config.evaluation.dailyBudget, maxInputTokens: config.evaluation.maxInputTokens };

/** Judges finished traces for the LLM-analysed alert types; a judge failure retries the record, then dead-letters it. */
export const evaluateHandler = (getPorts: () => Ports = defaultPorts, settings: EvaluationSettings = configuredSettings) =>
  sqsBatchHandler(async (record) => {
    const { store, judge, clock, ids, queue } = getPorts();
    const job = evaluationJobSchema.parse(JSON.parse(record.body));
    const result = await evaluateTrace(job, { store, judge, clock, ids, queue, settings });
    // Scores and outcomes only: the trace's content and the judge's reasoning stay out of the logs.
    logger[result.outcome === 'over-budget' ? 'warn' : 'info']('trace evaluation', { tenantId: job.tenantId, traceId: job.traceId, judge: judge.name, ...result });
  });

export const handler = evaluateHandler();
