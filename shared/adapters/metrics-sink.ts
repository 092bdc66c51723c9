import { type _Record, TimestreamWriteClient, WriteRecordsCommand } from '@aws-sdk/client-timestream-write';
import type { MetricsSink } from '../domain/ports.ts';
import type { TraceSummary } from '../domain/spans/summary.ts';
import { traced } from '../observability/tracer.ts';
import { clientSettings } from './aws-clients.ts';

export const noMetricsSink: MetricsSink = { writeTraces: async () => {} };

const MAX_RECORDS_PER_WRITE = 100;

/** One multi-measure record per finished trace, timed at its end; writing it again is harmless. */
export function traceRecord(tenantId: string, t: TraceSummary): _Record {
  return {
    Dimensions: [
      { Name: 'tenantId', Value: tenantId },
      { Name: 'agentId', Value: t.agentId ?? 'none' },
      { Name: 'status', Value: t.status },
      { Name: 'model', Value: t.model ?? 'none' },
      { Name: 'traceId', Value: t.traceId },
    ],
    MeasureName: 'trace',
    MeasureValueType: 'MULTI',
    MeasureValues: [
      { Name: 'durationMs', Value: String(t.durationMs ?? 0), Type: 'BIGINT' },
      { Name: 'spanCount', Value: String(t.spanCount), Type: 'BIGINT' },
      { Name: 'inputTokens', Value: String(t.inputTokens), Type: 'BIGINT' },
      { Name: 'outputTokens', Value: String(t.outputTokens), Type: 'BIGINT' },
      { Name: 'cost', Value: String(t.cost), Type: 'DOUBLE' },
    ],
    Time: String(t.endTimeMs ?? t.startTimeMs),
    TimeUnit: 'MILLISECONDS',
    Version: 1,
  };
}

/**
 * Timestream for LiveAnalytics takes no new customers since June 2025, so this sink is optional and
 * off unless TIMESTREAM_DATABASE and TIMESTREAM_TABLE are set. Errors surface: the ingest message is
 * retried, and its other writes are idempotent. The SDK client finds the account's cell endpoint
 * (DescribeEndpoints), keeps it for the period Timestream gives and asks again when a cell refuses.
 */
export function timestreamSink(
  database: string,
  table: string,
  client: TimestreamWriteClient = traced(new TimestreamWriteClient(clientSettings({ attempts: 3, attemptTimeoutMs: 3000 }))),
): MetricsSink {
  return {
    async writeTraces(tenantId, traces) {
      for (let i = 0; i < traces.length; i += MAX_RECORDS_PER_WRITE) {
        const Records = traces.slice(i, i + MAX_RECORDS_PER_WRITE).map((t) => traceRecord(tenantId, t));
        await client.send(new WriteRecordsCommand({ DatabaseName: database, TableName: table, Records }));
      }
    },
  };
}
