import { lakeMaintenance } from '../../shared/adapters/lake-ports.ts';
import { portsOf } from '../../shared/adapters/ports.ts';
import { expireLakeRows } from '../../shared/domain/lake/maintenance.ts';
import { logger } from '../../shared/http/logger.ts';

const retentionPorts = portsOf({}, { lakeMaintenance });

/** Scheduled, hourly: deletes the lake's rows past their plan's retention. */
export const lakeRetentionHandler = (getPorts: () => Pick<ReturnType<typeof retentionPorts>, 'lakeMaintenance' | 'clock'> = retentionPorts) => async () => {
  await expireLakeRows(getPorts());
  logger.info('lake retention applied');
};

export const handler = lakeRetentionHandler();
