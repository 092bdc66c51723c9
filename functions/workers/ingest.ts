import { noMetricsSink, timestreamSink, type MetricsSink } from '../../shared/adapters/metrics-sink.ts';
import { defaultPorts, type Ports } from '../../shared/adapters/ports.ts';
import { config } from '../../shared/config.ts';
import type { IngestMessage } from '../../shared/domain/ingest/messages.ts';
import { persistTelemetry, purgeAgent } from '../../shared/domain/ingest/persist.ts';
import { sqsBatchHandler } from '../../shared/workers/sqs-batch.ts';

/** Persists accepted telemetry and purges deleted agents; failed records retry alone, then go to the DLQ. */
export type IngestPorts = Ports & { metricsSink: MetricsSink };

let metricsSink: MetricsSink | undefined;
const ingestPorts = (): IngestPorts => ({
  ...defaultPorts(),
  metricsSink: (metricsSink ??= config.timestream ? timestreamSink(config.timestream.database, config.timestream.table) : noMetricsSink),
});

export const ingestHandler = (getPorts: () => IngestPorts = ingestPorts) =>
  sqsBatchHandler(async (record) => {
    const ports = getPorts();
    const deps = { store: ports.store, clock: ports.clock, ids: ports.ids, queue: ports.queue, metricsSink: ports.metricsSink };
    const message = JSON.parse(record.body) as IngestMessage;
    if (message.kind === 'telemetry') return persistTelemetry(message, deps);
    if (message.kind === 'purge-agent') {
      const rest = await purgeAgent(message, deps);
      if (rest) await ports.queue.send('ingest', [rest]);
      return;
    }
    throw new Error(`unknown ingest message kind ${String((message as { kind?: unknown }).kind)}`);
  });

export const handler = ingestHandler();
