import { mapConcurrently } from '#shared/domain/concurrency.ts';
import { BATCH_WRITE_LIMIT, batchWrite, chunks, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';

/** Writes the items as BatchWriteItem calls of 25, `writers` calls in flight, like several worker invocations at once. */
export async function writeInBatches(db: Db, items: readonly Record<string, unknown>[], writers: number): Promise<void> {
  await mapConcurrently(chunks(items, BATCH_WRITE_LIMIT), writers, (batch) => batchWrite(db, putRequests(batch)));
}
