import { sqsQueue } from '#shared/adapters/queue.ts';
import { closeQuietTraces } from '#shared/domain/ingest/closing-job.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { portsOf } from '#shared/wiring/ports.ts';

/** Each run may use most of its five minutes; the next run continues with the markers still due. */
const BUDGET_MS = 4 * 60_000;

const closingPorts = portsOf({ traces: tracesRepository }, { queue: sqsQueue });

/** Scheduled every five minutes: sends the pending traces that went quiet to the ingest worker to be closed. */
export const traceClosingHandler = (getPorts: () => ReturnType<typeof closingPorts> = closingPorts) =>
  instrumented(async () => {
    const ports = getPorts();
    const result = await closeQuietTraces({ store: ports.store, clock: ports.clock, queue: ports.queue }, BUDGET_MS);
    if (result.looked > 0) logger.info('trace closing', result);
    return result;
  });

export const handler = traceClosingHandler();
