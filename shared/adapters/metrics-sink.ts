import type { TraceSummary } from '../domain/spans/summary.ts';
import { AwsCallError, AwsServiceError, callAws, type AwsApi, type AwsCallOptions } from './aws-call.ts';

/** Where per-trace measures go besides the rollups: nowhere by default, Timestream when configured. */
export interface MetricsSink {
  writeTraces(tenantId: string, traces: readonly TraceSummary[]): Promise<void>;
}

export const noMetricsSink: MetricsSink = { writeTraces: async () => {} };

const MAX_RECORDS_PER_WRITE = 100;

/** A Timestream record as WriteRecords takes it (https://docs.aws.amazon.com/timestream/latest/developerguide/API_Record.html). */
export interface TimestreamRecord {
  Dimensions: { Name: string; Value: string }[];
  MeasureName: string;
  MeasureValueType: 'MULTI';
  MeasureValues: { Name: string; Value: string; Type: 'BIGINT' | 'DOUBLE' }[];
  Time: string;
  TimeUnit: 'MILLISECONDS';
  Version: number;
}

/** One multi-measure record per finished trace, timed at its end; writing it again is harmless. */
export function traceRecord(tenantId: string, t: TraceSummary): TimestreamRecord {
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

/** Timestream's write API (AWS JSON 1.0), whose calls go to a cell endpoint that DescribeEndpoints names. */
const TIMESTREAM_WRITE: AwsApi = { name: 'Timestream', signingName: 'timestream', endpointPrefix: 'ingest.timestream', endpointEnvId: 'TIMESTREAM_WRITE', protocol: 'json-rpc' };
const operation = (name: 'DescribeEndpoints' | 'WriteRecords', body: unknown) => ({
  name,
  path: '/',
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `Timestream_20181101.${name}` },
  body: JSON.stringify(body),
});

interface CellEndpoint {
  url: URL;
  expiresAt: number;
}

/**
 * Timestream for LiveAnalytics takes no new customers since June 2025, so this sink is optional and
 * off unless TIMESTREAM_DATABASE and TIMESTREAM_TABLE are set. Errors surface: the ingest message is
 * retried, and its other writes are idempotent.
 *
 * As the SDK client does, it asks DescribeEndpoints (at the regional endpoint, or the one
 * `AWS_ENDPOINT_URL_TIMESTREAM_WRITE` names) for the account's cell and keeps the answer for the period
 * it gives, asks again when the cell refuses the call as the wrong endpoint (InvalidEndpointException),
 * and skips discovery when it is given an endpoint (`options.endpoint`).
 * https://docs.aws.amazon.com/timestream/latest/developerguide/Using-API.endpoint-discovery.html
 */
export function timestreamSink(database: string, table: string, options: Partial<AwsCallOptions> = {}, now: () => number = Date.now): MetricsSink {
  let cell: CellEndpoint | undefined;

  async function cellEndpoint(): Promise<URL> {
    if (options.endpoint) return options.endpoint;
    if (cell && cell.expiresAt > now()) return cell.url;
    const { Endpoints } = (await callAws(TIMESTREAM_WRITE, operation('DescribeEndpoints', {}), options)) as { Endpoints?: { Address?: unknown; CachePeriodInMinutes?: unknown }[] };
    const [first] = Endpoints ?? [];
    if (typeof first?.Address !== 'string' || first.Address === '') throw new AwsCallError('Timestream answered DescribeEndpoints with no endpoint', true);
    const minutes = typeof first.CachePeriodInMinutes === 'number' ? first.CachePeriodInMinutes : 1;
    cell = { url: new URL(`https://${first.Address}/`), expiresAt: now() + minutes * 60_000 };
    return cell.url;
  }

  async function write(Records: TimestreamRecord[]): Promise<void> {
    const request = operation('WriteRecords', { DatabaseName: database, TableName: table, Records });
    try {
      await callAws(TIMESTREAM_WRITE, request, { ...options, endpoint: await cellEndpoint() });
    } catch (err) {
      if (!(err instanceof AwsServiceError && err.code === 'InvalidEndpointException')) throw err;
      cell = undefined;
      await callAws(TIMESTREAM_WRITE, request, { ...options, endpoint: await cellEndpoint() });
    }
  }

  return {
    async writeTraces(tenantId, traces) {
      for (let i = 0; i < traces.length; i += MAX_RECORDS_PER_WRITE) {
        await write(traces.slice(i, i + MAX_RECORDS_PER_WRITE).map((t) => traceRecord(tenantId, t)));
      }
    },
  };
}
