import { lakeWriter } from '#shared/adapters/lake-writer.ts';
import { noMetricsSink, timestreamSink } from '#shared/adapters/metrics-sink.ts';
import { sqsQueue } from '#shared/adapters/queue.ts';
import { config } from '#shared/config.ts';
import { closeTraces } from '#shared/domain/ingest/close.ts';
import { ingestMessageSchema } from '#shared/domain/ingest/message-schema.ts';
import type { IngestMessage } from '#shared/domain/ingest/messages.ts';
import { persistTelemetryBatch, purgeAgent } from '#shared/domain/ingest/persist.ts';
import { refreshQueuedSession } from '#shared/domain/sessions/ingest.ts';
import { count, METRIC } from '#shared/observability/metrics.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { profilesRepository } from '#shared/store/profiles.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { logsRepository, signalsRepository } from '#shared/store/timeline.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { portsOf } from '#shared/wiring/ports.ts';
import { sqsGroupedBatchHandler } from '#shared/workers/sqs-batch.ts';

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
    lake: () => lakeWriter(),
  },
);

/**
 * Persists accepted telemetry, a batch's messages together, closes quiet traces, refreshes large
 * sessions and purges deleted agents; failed records retry alone, then go to the DLQ.
 */
export type IngestPorts = ReturnType<typeof ingestPorts>;

type Parsed = { message: IngestMessage } | { error: unknown };

function parse(body: string): Parsed {
  try {
    return { message: ingestMessageSchema.parse(JSON.parse(body)) };
  } catch (error) {
    return { error };
  }
}

export const ingestHandler = (getPorts: () => IngestPorts = ingestPorts) =>
  sqsGroupedBatchHandler((records) => {
    const deps = getPorts();
    const parsed = new Map(records.map((r) => [r.messageId, parse(r.body)]));
    const telemetry = [...parsed.values()].flatMap((p) => ('message' in p && p.message.kind === 'telemetry' ? [p.message] : []));
    const persisted = persistTelemetryBatch(telemetry, deps).then((outcome) => {
      count(METRIC.spansIngested, outcome.spansStored);
      count(METRIC.alertsRaised, outcome.alertsRaised);
      return outcome;
    });
    return async (record) => {
      const p = parsed.get(record.messageId)!;
      if ('error' in p) throw p.error;
      const { message } = p;
      if (message.kind === 'telemetry') {
        const { failed } = await persisted;
        if (failed.has(message)) throw failed.get(message);
        return;
      }
      if (message.kind === 'close-traces') {
        count(METRIC.tracesClosed, await closeTraces(message, deps));
        return;
      }
      if (message.kind === 'refresh-session') {
        await refreshQueuedSession(message, deps);
        return;
      }
      const next = await purgeAgent(message, deps);
      if (next) await deps.queue.send('ingest', [next.message], { delaySeconds: next.delayed ? config.purgeSweepDelaySeconds : 0 });
    };
  });

export const handler = ingestHandler();
