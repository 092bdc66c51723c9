import { sqsQueue } from '#shared/adapters/queue.ts';
import { type ReindexDeps, reindexStep } from '#shared/domain/maintenance/reindex.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { reindexRepository } from '#shared/store/reindex.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { portsOf } from '#shared/wiring/ports.ts';

/** Each run may use most of a minute; the next run (a minute later) continues where it stopped. */
const BUDGET_MS = 45_000;

/** Scheduled every minute: moves items written before the current index layout into it, then only checks that it is done. */
export const reindexHandler = (
  getPorts: () => ReindexDeps = portsOf(
    { reindex: reindexRepository, traces: tracesRepository, sessions: sessionsRepository, agents: agentsRepository },
    { queue: sqsQueue },
  ),
) =>
  instrumented(async () => {
    const result = await reindexStep(getPorts(), BUDGET_MS);
    if (result.rewritten > 0) logger.info('reindex', result);
    return result;
  });

export const handler = reindexHandler();
