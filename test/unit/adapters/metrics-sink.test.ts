import { RejectedRecordsException, TimestreamWriteClient, WriteRecordsCommand } from '@aws-sdk/client-timestream-write';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { timestreamSink } from '#shared/adapters/metrics-sink.ts';
import { parseConfig } from '#shared/config.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';

const timestream = mockClient(TimestreamWriteClient);
beforeEach(() => timestream.reset());

const trace = (i: number): TraceSummary => ({
  traceId: `t${i}`,
  agentId: 'agt_1',
  agentName: 'bot',
  name: 'run',
  rootSpanId: 'r',
  status: i % 2 ? 'error' : 'ok',
  startTimeMs: 1000,
  endTimeMs: 3500,
  durationMs: 2500,
  spanCount: 3,
  errorCount: 0,
  inputTokens: 100,
  outputTokens: 20,
  totalTokens: 120,
  cost: 0.0042,
  model: 'gpt-4o',
  models: ['gpt-4o'],
  toolNames: [],
  errorTypes: [],
  tags: [],
  metadata: {},
  sessionId: null,
  userId: null,
  experimentId: null,
  variant: null,
  complete: true,
  closedAtMs: null,
});

describe('Timestream metrics sink (WriteRecords)', () => {
  it('is off unless both the database and the table are configured', () => {
    expect(parseConfig({ TABLE_NAME: 't' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db', TIMESTREAM_TABLE: 'traces' }).timestream).toEqual({ database: 'db', table: 'traces' });
  });

  it('writes one multi-measure record per trace, timed at its end, at most 100 per call', async () => {
    timestream.on(WriteRecordsCommand).resolves({ RecordsIngested: { Total: 100 } });
    await timestreamSink('db', 'traces', new TimestreamWriteClient({})).writeTraces(
      'tnt_1',
      Array.from({ length: 150 }, (_, i) => trace(i)),
    );
    expect(timestream).toHaveReceivedCommandTimes(WriteRecordsCommand, 2);
    const [first, second] = timestream.commandCalls(WriteRecordsCommand).map((call) => call.args[0].input);
    expect(first).toMatchObject({ DatabaseName: 'db', TableName: 'traces' });
    expect([first!.Records!.length, second!.Records!.length]).toEqual([100, 50]);
    expect(first!.Records![1]).toEqual({
      Dimensions: [
        { Name: 'tenantId', Value: 'tnt_1' },
        { Name: 'agentId', Value: 'agt_1' },
        { Name: 'status', Value: 'error' },
        { Name: 'model', Value: 'gpt-4o' },
        { Name: 'traceId', Value: 't1' },
      ],
      MeasureName: 'trace',
      MeasureValueType: 'MULTI',
      MeasureValues: [
        { Name: 'durationMs', Value: '2500', Type: 'BIGINT' },
        { Name: 'spanCount', Value: '3', Type: 'BIGINT' },
        { Name: 'inputTokens', Value: '100', Type: 'BIGINT' },
        { Name: 'outputTokens', Value: '20', Type: 'BIGINT' },
        { Name: 'cost', Value: '0.0042', Type: 'DOUBLE' },
      ],
      Time: '3500',
      TimeUnit: 'MILLISECONDS',
      Version: 1,
    });
  });

  it('lets a failed write surface, so the ingest message is retried (its other writes are idempotent)', async () => {
    const rejected = new RejectedRecordsException({ message: 'rejected', $metadata: {} });
    timestream.on(WriteRecordsCommand).rejects(rejected);
    await expect(timestreamSink('db', 'traces', new TimestreamWriteClient({})).writeTraces('tnt_1', [trace(0)])).rejects.toBe(rejected);
  });
});
