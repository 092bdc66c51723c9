import { TimestreamWriteClient, WriteRecordsCommand } from '@aws-sdk/client-timestream-write';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config.ts';
import { timestreamSink } from '../../../shared/adapters/metrics-sink.ts';
import type { TraceSummary } from '../../../shared/domain/spans/summary.ts';

const timestream = mockClient(TimestreamWriteClient);
beforeEach(() => timestream.reset());

const trace = (i: number): TraceSummary => ({
  traceId: `t${i}`, agentId: 'agt_1', agentName: 'bot', name: 'run', rootSpanId: 'r', status: i % 2 ? 'error' : 'ok', startTimeMs: 1000, endTimeMs: 3500,
  durationMs: 2500, spanCount: 3, errorCount: 0, inputTokens: 100, outputTokens: 20, totalTokens: 120, cost: 0.0042, model: 'gpt-4o', models: ['gpt-4o'],
  sessionId: null, userId: null, experimentId: null, variant: null, complete: true,
});

describe('Timestream metrics sink', () => {
  it('is off unless both the database and the table are configured', () => {
    expect(parseConfig({ TABLE_NAME: 't' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db', TIMESTREAM_TABLE: 'traces' }).timestream).toEqual({ database: 'db', table: 'traces' });
  });

  it('writes one multi-measure record per trace, at most 100 per call', async () => {
    timestream.on(WriteRecordsCommand).resolves({});
    await timestreamSink('db', 'traces', new TimestreamWriteClient({})).writeTraces('tnt_1', Array.from({ length: 150 }, (_, i) => trace(i)));
    expect(timestream).toHaveReceivedCommandTimes(WriteRecordsCommand, 2);
    const first = timestream.commandCalls(WriteRecordsCommand)[0]!.args[0].input;
    expect(first).toMatchObject({ DatabaseName: 'db', TableName: 'traces' });
    expect(first.Records).toHaveLength(100);
    expect(first.Records![0]).toMatchObject({
      MeasureName: 'trace', MeasureValueType: 'MULTI', Time: '3500', TimeUnit: 'MILLISECONDS',
      Dimensions: expect.arrayContaining([{ Name: 'tenantId', Value: 'tnt_1' }, { Name: 'agentId', Value: 'agt_1' }]),
      MeasureValues: expect.arrayContaining([{ Name: 'durationMs', Value: '2500', Type: 'BIGINT' }, { Name: 'cost', Value: '0.0042', Type: 'DOUBLE' }]),
    });
  });

  it('lets a throttled or rejected write fail, so the ingest message is retried', async () => {
    timestream.on(WriteRecordsCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    await expect(timestreamSink('db', 'traces', new TimestreamWriteClient({})).writeTraces('t', [trace(0)])).rejects.toThrow('Rate exceeded');
  });
});
