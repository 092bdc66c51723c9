import { defaultPorts, type Ports } from '../../shared/adapters/ports.ts';
import type { IngestMessage } from '../../shared/domain/ingest/messages.ts';
import { persistTelemetry, purgeAgent } from '../../shared/domain/ingest/persist.ts';
import { sqsBatchHandler } from '../../shared/workers/sqs-batch.ts';

/** Persists accepted telemetry and purges deleted agents; failed records retry alone, then go to the DLQ. */
export const ingestHandler = (getPorts: () => Ports = defaultPorts) =>
  sqsBatchHandler(async (record) => {
    const ports = getPorts();
    const deps = { store: ports.store, clock: ports.clock, ids: ports.ids, queue: ports.queue, metricsSink: ports.metricsSink };
    const message = JSON.parse(record.body) as IngestMessage;
    if (message.kind === 'telemetry') return persistTelemetry(message, record.messageId, deps);
    if (message.kind === 'purge-agent') {
      const rest = await purgeAgent(message, deps);
      if (rest) await ports.queue.send('ingest', [rest]);
      return;
    }
    throw new Error(`unknown ingest message kind ${String((message as { kind?: unknown }).kind)}`);
  });

export const handler = ingestHandler();
