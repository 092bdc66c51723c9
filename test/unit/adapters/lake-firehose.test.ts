import { FirehoseClient, PutRecordBatchCommand, type PutRecordBatchCommandInput, ServiceUnavailableException } from '@aws-sdk/client-firehose';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { batchesOf, firehoseLakeWriter, LakeWriteError, ROUTING_FIELD, recordsOf } from '#shared/adapters/lake-firehose.ts';
import type { LakeRows } from '#shared/domain/lake/records.ts';

const firehose = mockClient(FirehoseClient);
beforeEach(() => firehose.reset());

const STREAM = 'AgentObservability-Lake-records';
const writer = () => firehoseLakeWriter(STREAM, new FirehoseClient({}));
const metadata = { $metadata: {} };

/** Rows of `traces` traces with two spans each and one signal. */
const rowsOf = (traces: number, text = 'refund'): LakeRows => ({
  traces: Array.from({ length: traces }, (_, i) => ({ tenant_id: 'tnt_a', trace_id: `t-${i}`, start_ms: i, search_text: ` ${text} ` })),
  spans: Array.from({ length: traces * 2 }, (_, i) => ({ tenant_id: 'tnt_a', trace_id: `t-${i >> 1}`, span_id: `s-${i}`, trace_start_ms: i >> 1 })),
  signals: [{ tenant_id: 'tnt_a', signal_id: 'sig-1', timestamp_ms: 1, value: 0.5 }],
});

const decoded = (input: PutRecordBatchCommandInput) => input.Records!.map((r) => JSON.parse(Buffer.from(r.Data!).toString('utf8')) as Record<string, unknown>);
const sentInputs = () => firehose.commandCalls(PutRecordBatchCommand).map((c) => c.args[0].input);

/** Firehose taking every record. */
const acceptAll = (input: PutRecordBatchCommandInput) => ({
  FailedPutCount: 0,
  Encrypted: true,
  RequestResponses: input.Records!.map((_, i) => ({ RecordId: `r-${i}` })),
});

describe('Firehose lake writer: records and batches', () => {
  it("sends one newline-terminated JSON record per row, each naming its table for the stream's routing", async () => {
    firehose.on(PutRecordBatchCommand).callsFake(acceptAll);
    await writer().write(rowsOf(2));
    expect(firehose).toHaveReceivedCommandTimes(PutRecordBatchCommand, 1);
    const [input] = sentInputs();
    expect(input!.DeliveryStreamName).toBe(STREAM);
    expect(input!.Records!.every((r) => Buffer.from(r.Data!).toString('utf8').endsWith('}\n'))).toBe(true);
    expect(decoded(input!).map((r) => r[ROUTING_FIELD])).toEqual([
      'lake_traces',
      'lake_traces',
      'lake_spans',
      'lake_spans',
      'lake_spans',
      'lake_spans',
      'lake_signals',
    ]);
    expect(decoded(input!)[0]).toEqual({ tenant_id: 'tnt_a', trace_id: 't-0', start_ms: 0, search_text: ' refund ', [ROUTING_FIELD]: 'lake_traces' });
  });

  it('cuts the records into batches of at most 500 records and 4 MiB, in order, none lost', async () => {
    firehose.on(PutRecordBatchCommand).callsFake(acceptAll);
    await writer().write(rowsOf(400));
    // 400 traces + 800 spans + 1 signal.
    expect(sentInputs().map((i) => i.Records!.length)).toEqual([500, 500, 201]);
    const ids = sentInputs().flatMap((i) => decoded(i).map((r) => `${r[ROUTING_FIELD]}/${r['span_id'] ?? r['trace_id'] ?? r['signal_id']}`));
    expect(new Set(ids).size).toBe(1201);

    const big = new Uint8Array(900 * 1024);
    expect(batchesOf([big, big, big, big, big, big]).map((b) => b.length)).toEqual([4, 2]);
    expect(batchesOf(recordsOf(rowsOf(0))).map((b) => b.length)).toEqual([1]);
    expect(batchesOf([])).toEqual([]);
  });

  it('sends nothing for nothing', async () => {
    await writer().write({ traces: [], spans: [], signals: [] });
    expect(firehose).not.toHaveReceivedCommand(PutRecordBatchCommand);
  });
});

describe('Firehose lake writer: partial failures (FailedPutCount)', () => {
  it('sends again exactly the records Firehose refused, until it has taken them all', async () => {
    let call = 0;
    firehose.on(PutRecordBatchCommand).callsFake((input: PutRecordBatchCommandInput) => {
      call++;
      if (call === 1) {
        return {
          FailedPutCount: 2,
          RequestResponses: input.Records!.map((_, i) =>
            i === 1 || i === 4 ? { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' } : { RecordId: `r-${i}` },
          ),
        };
      }
      if (call === 2) return { FailedPutCount: 1, RequestResponses: [{ RecordId: 'r-1' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'oops' }] };
      return acceptAll(input);
    });
    const rows = rowsOf(2);
    await writer().write(rows);
    const [first, second, third] = sentInputs();
    expect(sentInputs()).toHaveLength(3);
    expect(second!.Records).toEqual([first!.Records![1], first!.Records![4]]);
    expect(third!.Records).toEqual([first!.Records![4]]);
  });

  it('sends the whole batch again when Firehose counts failures without marking them (duplicates are upserts, losses are not acceptable)', async () => {
    firehose.on(PutRecordBatchCommand).resolvesOnce({ FailedPutCount: 1, RequestResponses: [] }).callsFake(acceptAll);
    await writer().write(rowsOf(1));
    const [first, second] = sentInputs();
    expect(second!.Records).toEqual(first!.Records);
  });

  it('throws LakeWriteError after three attempts, naming how many records and why, so the ingest message is delivered again', async () => {
    firehose.on(PutRecordBatchCommand).callsFake((input: PutRecordBatchCommandInput) => ({
      FailedPutCount: 1,
      RequestResponses: input.Records!.map((_, i) =>
        i === 0 ? { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' } : { RecordId: `r-${i}` },
      ),
    }));
    const err = await writer()
      .write(rowsOf(1))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LakeWriteError);
    expect((err as Error).message).toMatch(/refused 1 record\(s\) after 3 attempts \(ServiceUnavailableException\)/);
    expect(firehose).toHaveReceivedCommandTimes(PutRecordBatchCommand, 3);
  });

  it('stops at the first batch Firehose will not take: later batches are not sent, so nothing is reported written that was not', async () => {
    firehose
      .on(PutRecordBatchCommand)
      .resolves({ FailedPutCount: 500, RequestResponses: Array.from({ length: 500 }, () => ({ ErrorCode: 'ServiceUnavailableException' })) });
    await expect(writer().write(rowsOf(400))).rejects.toBeInstanceOf(LakeWriteError);
    expect(sentInputs().every((i) => i.Records!.length === 500)).toBe(true);
    expect(firehose).toHaveReceivedCommandTimes(PutRecordBatchCommand, 3);
  });
});

describe('Firehose lake writer: a call that fails as a whole', () => {
  it("surfaces as the SDK's exception once the SDK has given up retrying, failing the ingest message, which SQS delivers again", async () => {
    const failure = new ServiceUnavailableException({ message: 'Firehose is unavailable', ...metadata });
    firehose.on(PutRecordBatchCommand).rejects(failure);
    await expect(writer().write(rowsOf(1))).rejects.toBe(failure);
  });
});
