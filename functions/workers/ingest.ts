import { noMetricsSink, timestreamSink } from '../../shared/adapters/metrics-sink.ts';
import { portsOf } from '../../shared/adapters/ports.ts';
import { sqsQueue } from '../../shared/adapters/queue.ts';
import { config } from '../../shared/config.ts';
import { count, METRIC } from '../../shared/observability/metrics.ts';
import type { IngestMessage } from '../../shared/domain/ingest/messages.ts';
import { persistTelemetry, purgeAgent } from '../../shared/domain/ingest/persist.ts';
import { agentsRepository } from '../../shared/store/agents.ts';
import { alertsRepository } from '../../shared/store/alerts.ts';
import { experimentsRepository } from '../../shared/store/experiments.ts';
import { profilesRepository } from '../../shared/store/profiles.ts';
import { rollupsRepository } from '../../shared/store/rollups.ts';
import { sessionsRepository } from '../../shared/store/sessions.ts';
import { tenantsRepository } from '../../shared/store/tenants.ts';
import { logsRepository, signalsRepository } from '../../shared/store/timeline.ts';
import { tracesRepository } from '../../shared/store/traces.ts';
import { sqsBatchHandler } from '../../shared/workers/sqs-batch.ts';

const ingestPorts = portsOf(
  {
    tenants: tenantsRepository,
    agents: agentsRepository,
    traces: tracesRepository,
    signals: signalsRepository,
    logs: logsRepository,
    alerts: alertsRepository,
    rollups: rollupsRepository,
    experiments: experimentsRepository,
    profiles: profilesRepository,
    sessions: sessionsRepository,
  },
  {
    queue: sqsQueue,
    metricsSink: () => (config.timestream ? timestreamSink(config.timestream.database, config.timestream.table) : noMetricsSink),
  },
);

/** Persists accepted telemetry and purges deleted agents; failed records retry alone, then go to the DLQ. */
export type IngestPorts = ReturnType<typeof ingestPorts>;

export const ingestHandler = (getPorts: () => IngestPorts = ingestPorts) =>
  sqsBatchHandler(async (record) => {
    const deps = getPorts();
    const message = JSON.parse(record.body) as IngestMessage;
    if (message.kind === 'telemetry') {
      const { spansStored, alertsRaised } = await persistTelemetry(message, deps);
      count(METRIC.spansIngested, spansStored);
      count(METRIC.alertsRaised, alertsRaised);
      return;
    }
    if (message.kind === 'purge-agent') {
      const next = await purgeAgent(message, deps);
      if (next) await deps.queue.send('ingest', [next.message], { delaySeconds: next.delayed ? config.purgeSweepDelaySeconds : 0 });
      return;
    }
    throw new Error(`unknown ingest message kind ${String((message as { kind?: unknown }).kind)}`);
  });

export const handler = ingestHandler();
