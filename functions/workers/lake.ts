import { runExport } from '#shared/domain/lake/exports.ts';
import { forgetAgent } from '#shared/domain/lake/maintenance.ts';
import { lakeMessageSchema } from '#shared/domain/lake/messages.ts';
import { logger, thrown } from '#shared/observability/logger.ts';
import { exportsRepository } from '#shared/store/exports.ts';
import { exportRunner, lakeMaintenance } from '#shared/wiring/lake.ts';
import { portsOf } from '#shared/wiring/ports.ts';
import { sqsBatchHandler } from '#shared/workers/sqs-batch.ts';

const lakePorts = portsOf({ exports: exportsRepository }, { exportRunner, lakeMaintenance });

export type LakePorts = ReturnType<typeof lakePorts>;

/** Runs exports and removes deleted agents' rows from the lake; a failed removal is retried by SQS. */
export const lakeHandler = (getPorts: () => LakePorts = lakePorts) =>
  sqsBatchHandler(async (record) => {
    const ports = getPorts();
    const message = lakeMessageSchema.parse(JSON.parse(record.body));
    if (message.kind === 'export') return runExport(message, { ...ports, reportError: (text, err) => logger.error(text, thrown(err)) });
    return forgetAgent(message, ports);
  });

export const handler = lakeHandler();
