import { DescribeEndpointsCommand, TimestreamWriteClient, WriteRecordsCommand, type _Record } from '@aws-sdk/client-timestream-write';
import { describe, expect, it } from 'vitest';
import { timestreamSink } from '../../../shared/adapters/metrics-sink.ts';
import { parseConfig } from '../../../shared/config.ts';
import type { TraceSummary } from '../../../shared/domain/spans/summary.ts';
import { CREDENTIALS, expectSameRequest, fakeAwsService, verifySignature, type Answer, type Received } from '../../support/fake-aws.ts';

const REGION = 'us-east-1';
const trace = (i: number): TraceSummary => ({
  traceId: `t${i}`, agentId: 'agt_1', agentName: 'bot', name: 'run', rootSpanId: 'r', status: i % 2 ? 'error' : 'ok', startTimeMs: 1000, endTimeMs: 3500,
  durationMs: 2500, spanCount: 3, errorCount: 0, inputTokens: 100, outputTokens: 20, totalTokens: 120, cost: 0.0042, model: 'gpt-4o', models: ['gpt-4o'], toolNames: [], errorTypes: [],
  sessionId: null, userId: null, experimentId: null, variant: null, complete: true,
});

const targetOf = (r: Received) => String(r.headers['x-amz-target']);
const writes = (received: Received[]) => received.filter((r) => targetOf(r) === 'Timestream_20181101.WriteRecords');
const discoveries = (received: Received[]) => received.filter((r) => targetOf(r) === 'Timestream_20181101.DescribeEndpoints');
const ok: Answer = { status: 200, body: JSON.stringify({ RecordsIngested: { Total: 1, MemoryStore: 1, MagneticStore: 0 } }) };

describe('Timestream metrics sink', () => {
  const fake = fakeAwsService('application/x-amz-json-1.0');

  /** Timestream as discovery and cell both: DescribeEndpoints names the fake itself, for `minutes`. */
  const timestream =
    (write: Answer = ok, minutes = 1): Answer =>
    (request) => {
      if (targetOf(request) === 'Timestream_20181101.DescribeEndpoints') return { status: 200, body: JSON.stringify({ Endpoints: [{ Address: fake.endpoint.host, CachePeriodInMinutes: minutes }] }) };
      return typeof write === 'function' ? write(request) : (write as Exclude<Answer, 'hang' | Function>);
    };
  /** Discovery at the fake (the SDK's endpoint variable); the cell it names is addressed over https, and the fake listens on http. */
  const discovering = (now = () => 0) =>
    timestreamSink(
      'db',
      'traces',
      { credentials: CREDENTIALS, env: { AWS_REGION: REGION, AWS_ENDPOINT_URL_TIMESTREAM_WRITE: fake.endpoint.href }, fetch: (url, init) => fetch(String(url).replace(/^https:/, 'http:'), init), baseDelayMs: 1 },
      now,
    );

  it('is off unless both the database and the table are configured', () => {
    expect(parseConfig({ TABLE_NAME: 't' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db' }).timestream).toBeUndefined();
    expect(parseConfig({ TABLE_NAME: 't', TIMESTREAM_DATABASE: 'db', TIMESTREAM_TABLE: 'traces' }).timestream).toEqual({ database: 'db', table: 'traces' });
  });

  it('writes one multi-measure record per trace, at most 100 per call, as the SDK client writes them', async () => {
    fake.answers = [ok];
    await timestreamSink('db', 'traces', { credentials: CREDENTIALS, env: { AWS_REGION: REGION }, endpoint: fake.endpoint }).writeTraces('tnt_1', Array.from({ length: 150 }, (_, i) => trace(i)));
    // Given an endpoint, it skips discovery, as the SDK client built with one does.
    expect(discoveries(fake.received)).toEqual([]);
    const [first, second] = writes(fake.received).map((r) => JSON.parse(r.body) as { DatabaseName: string; TableName: string; Records: _Record[] });
    expect(first).toMatchObject({ DatabaseName: 'db', TableName: 'traces' });
    expect([first!.Records.length, second!.Records.length]).toEqual([100, 50]);
    expect(first!.Records[0]).toMatchObject({
      MeasureName: 'trace', MeasureValueType: 'MULTI', Time: '3500', TimeUnit: 'MILLISECONDS', Version: 1,
      Dimensions: expect.arrayContaining([{ Name: 'tenantId', Value: 'tnt_1' }, { Name: 'agentId', Value: 'agt_1' }]),
      MeasureValues: expect.arrayContaining([{ Name: 'durationMs', Value: '2500', Type: 'BIGINT' }, { Name: 'cost', Value: '0.0042', Type: 'DOUBLE' }]),
    });

    const sdk = new TimestreamWriteClient({ region: REGION, endpoint: fake.endpoint.href, credentials: CREDENTIALS });
    await sdk.send(new WriteRecordsCommand({ DatabaseName: 'db', TableName: 'traces', Records: second!.Records }));
    const received = writes(fake.received);
    expectSameRequest(received[1]!, received[2]!, { headers: ['content-type', 'x-amz-target', 'x-amz-security-token'], scope: /^AKIDEXAMPLE\/\d{8}\/us-east-1\/timestream\/aws4_request$/ });
    await verifySignature(received[1]!, { service: 'timestream', region: REGION });
  });

  it('asks DescribeEndpoints for its cell (where AWS_ENDPOINT_URL_TIMESTREAM_WRITE says), as the SDK client asks, writes there, and keeps the answer for the period given', async () => {
    fake.answers = [timestream(ok, 2)];
    let now = 0;
    const sink = discovering(() => now);
    await sink.writeTraces('t', Array.from({ length: 150 }, (_, i) => trace(i)));
    now += 119_000;
    await sink.writeTraces('t', [trace(1)]);
    expect(discoveries(fake.received)).toHaveLength(1);
    expect(writes(fake.received)).toHaveLength(3);
    now += 2_000;
    await sink.writeTraces('t', [trace(2)]);
    expect(discoveries(fake.received)).toHaveLength(2);

    const sdk = new TimestreamWriteClient({ region: REGION, endpoint: fake.endpoint.href, credentials: CREDENTIALS });
    await sdk.send(new DescribeEndpointsCommand({}));
    const [ours, , theirs] = discoveries(fake.received);
    expectSameRequest(ours!, theirs!, { headers: ['content-type', 'x-amz-target'], scope: /^AKIDEXAMPLE\/\d{8}\/us-east-1\/timestream\/aws4_request$/ });
  });

  it('asks again when the cell answers that it is the wrong endpoint, and writes there', async () => {
    // fetch stands in for the network here: on a 421 (Misdirected Request) fetch itself retries on new connections first.
    const calls: string[] = [];
    let refused = false;
    const network: typeof fetch = async (url, init) => {
      const target = new Headers(init?.headers).get('x-amz-target')!.split('.')[1]!;
      calls.push(`${target} ${String(url)}`);
      if (target === 'DescribeEndpoints') return new Response(JSON.stringify({ Endpoints: [{ Address: `cell-${calls.length}.example`, CachePeriodInMinutes: 60 }] }));
      if (refused) return new Response('{}');
      refused = true;
      return new Response(JSON.stringify({ __type: 'com.amazonaws.timestream.v20181101#InvalidEndpointException', message: 'The endpoint is not valid.' }), { status: 421 });
    };
    await timestreamSink('db', 'traces', { credentials: CREDENTIALS, env: { AWS_REGION: REGION }, fetch: network }).writeTraces('t', [trace(0)]);
    // With an endpoint variable, discovery goes there, and the writes still go to the cell it names.
    await timestreamSink('db', 'traces', { credentials: CREDENTIALS, env: { AWS_REGION: REGION, AWS_ENDPOINT_URL_TIMESTREAM_WRITE: 'https://discovery.example' }, fetch: network }).writeTraces('t', [trace(1)]);
    expect(calls).toEqual([
      'DescribeEndpoints https://ingest.timestream.us-east-1.amazonaws.com/',
      'WriteRecords https://cell-1.example/',
      'DescribeEndpoints https://ingest.timestream.us-east-1.amazonaws.com/',
      'WriteRecords https://cell-3.example/',
      'DescribeEndpoints https://discovery.example/',
      'WriteRecords https://cell-5.example/',
    ]);
  });

  it('lets a throttled or rejected write fail once its attempts are spent, so the ingest message is retried', async () => {
    fake.answers = [timestream({ status: 400, body: JSON.stringify({ __type: 'com.amazonaws.timestream.v20181101#ThrottlingException', message: 'Rate exceeded' }) })];
    await expect(discovering().writeTraces('t', [trace(0)])).rejects.toMatchObject({ code: 'ThrottlingException', retryable: true });
    expect(writes(fake.received)).toHaveLength(3);
    fake.received.length = 0;
    fake.answers = [timestream({ status: 419, body: JSON.stringify({ __type: 'com.amazonaws.timestream.v20181101#RejectedRecordsException', message: 'One or more records have been rejected.', RejectedRecords: [{ RecordIndex: 0, Reason: 'version' }] }) })];
    await expect(discovering().writeTraces('t', [trace(0)])).rejects.toMatchObject({ code: 'RejectedRecordsException', retryable: false });
    expect(writes(fake.received)).toHaveLength(1);
  });

  it('refuses a discovery answer without an endpoint', async () => {
    fake.answers = [{ status: 200, body: JSON.stringify({ Endpoints: [] }) }];
    await expect(discovering().writeTraces('t', [trace(0)])).rejects.toThrow('Timestream answered DescribeEndpoints with no endpoint');
  });
});
