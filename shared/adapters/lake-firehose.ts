import { type _Record, FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import type { LakeWriter } from '../domain/lake/ports.ts';
import type { LakeRows } from '../domain/lake/records.ts';
import { LAKE_TABLES, type LakeRow } from '../domain/lake/schema.ts';

/**
 * The lake on AWS takes rows through one Amazon Data Firehose stream delivering to the lake's Apache
 * Iceberg tables. Each record names its table (`lake_table`); the stream's JQ metadata extraction routes
 * it there as an `update`, which with the tables' unique keys replaces the row of the same key: a
 * trace written again, by a retry or a later span, stays one row set, the latest. Firehose buffers
 * (see the lake stack) before it commits, which is how long a trace takes to become searchable.
 */
export const ROUTING_FIELD = 'lake_table';

/** Firehose did not take some rows after retries: the ingest message fails and SQS delivers it again. */
export class LakeWriteError extends Error {}

/** PutRecordBatch takes at most 500 records and 4 MiB. */
const MAX_RECORDS = 500;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const ATTEMPTS = 3;

export function recordsOf(rows: LakeRows): Uint8Array[] {
  const [traces, spans, signals] = LAKE_TABLES;
  const encode = (table: string, row: LakeRow) => Buffer.from(`${JSON.stringify({ ...row, [ROUTING_FIELD]: table })}\n`);
  return [
    ...rows.traces.map((r) => encode(traces!.name, r)),
    ...rows.spans.map((r) => encode(spans!.name, r)),
    ...rows.signals.map((r) => encode(signals!.name, r)),
  ];
}

/** Batches PutRecordBatch accepts: 500 records and 4 MiB at most. */
export function batchesOf(records: readonly Uint8Array[]): Uint8Array[][] {
  const batches: Uint8Array[][] = [];
  let current: Uint8Array[] = [];
  let bytes = 0;
  for (const record of records) {
    if (current.length === MAX_RECORDS || (current.length > 0 && bytes + record.byteLength > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += record.byteLength;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function firehoseLakeWriter(streamName: string, client: FirehoseClient = new FirehoseClient({})): LakeWriter {
  return {
    async write(rows) {
      for (const batch of batchesOf(recordsOf(rows))) {
        let pending: _Record[] = batch.map((Data) => ({ Data }));
        for (let attempt = 1; pending.length > 0; attempt++) {
          const answer = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: streamName, Records: pending }));
          if (!answer.FailedPutCount) break;
          // Firehose refuses records one by one (throttling, a service error): only those are sent again.
          const marked = pending.filter((_, i) => answer.RequestResponses?.[i]?.ErrorCode);
          const refused = marked.length > 0 ? marked : pending;
          if (attempt === ATTEMPTS) {
            const codes = [...new Set(answer.RequestResponses?.flatMap((r) => (r.ErrorCode ? [r.ErrorCode] : [])))].join(', ');
            throw new LakeWriteError(`Firehose refused ${refused.length} record(s) after ${ATTEMPTS} attempts (${codes})`);
          }
          pending = refused;
          await pause(100 * 2 ** attempt);
        }
      }
    },
  };
}
