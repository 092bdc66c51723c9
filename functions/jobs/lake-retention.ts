import { expireLakeRows } from '#shared/domain/lake/maintenance.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { lakeMaintenance } from '#shared/wiring/lake.ts';
import { portsOf } from '#shared/wiring/ports.ts';

const retentionPorts = portsOf({}, { lakeMaintenance });

/** Scheduled, hourly: deletes the lake's rows past their plan's retention. */
export const lakeRetentionHandler = (getPorts: () => Pick<ReturnType<typeof retentionPorts>, 'lakeMaintenance' | 'clock'> = retentionPorts) =>
  instrumented(async () => {
    await expireLakeRows(getPorts());
    logger.info('lake retention applied');
  });

export const handler = lakeRetentionHandler();
