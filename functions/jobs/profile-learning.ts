import { runDueLearningCycles } from '#shared/domain/profiles/service.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { LEARNING_REPOSITORIES, learningDeps } from '#shared/wiring/learning.ts';
import { portsOf } from '#shared/wiring/ports.ts';

/** Agents per run; the rest stay due and are taken by the next run, five minutes later. */
const MAX_AGENTS = 50;
/** Within the five-minute schedule (and the job's timeout), leaving room for the cycle in progress. */
const BUDGET_MS = 3 * 60_000;

/** Scheduled: runs the learning cycles of the agents that are due (profile-learning in the catalog). */
export const profileLearningHandler = (getPorts = portsOf(LEARNING_REPOSITORIES)) =>
  instrumented(async () => {
    const result = await runDueLearningCycles(learningDeps(getPorts()), { maxAgents: MAX_AGENTS, budgetMs: BUDGET_MS });
    if (result.due > 0) logger.info('profile learning', result);
    return result;
  });

export const handler = profileLearningHandler();
