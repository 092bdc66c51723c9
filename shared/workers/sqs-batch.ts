import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { instrumented } from '../observability/handler.ts';
import { logger } from '../observability/logger.ts';

/**
 * An SQS consumer that reports partial batch failures (Powertools' batch processing): records that fail
 * are retried alone (and end in the DLQ after the queue's maxReceiveCount), the rest are acknowledged.
 * The records of a batch run in parallel; a batch whose every record failed answers them all as
 * failures too rather than throwing, which SQS treats alike.
 */
export function sqsBatchHandler(processRecord: (record: SQSRecord) => Promise<void>) {
  return sqsGroupedBatchHandler(() => processRecord);
}

/**
 * `sqsBatchHandler` for a consumer that does some of a batch's work for all its records at once:
 * `startBatch` sees the whole batch first and answers how each record is processed (typically by
 * waiting for its part of the shared work). A record fails exactly when its processing throws.
 */
export function sqsGroupedBatchHandler(startBatch: (records: readonly SQSRecord[]) => (record: SQSRecord) => Promise<void>) {
  const handleRecord = (processRecord: (record: SQSRecord) => Promise<void>) => async (record: SQSRecord) => {
    try {
      await processRecord(record);
    } catch (err) {
      logger.error('record failed; it will be retried', {
        messageId: record.messageId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        error: err instanceof Error ? err.message : String(err),
      });
      throw err;
    }
  };
  return instrumented(
    (event: SQSEvent, context): Promise<SQSBatchResponse> =>
      // A processor per invocation: locally one process runs a consumer's batches concurrently.
      processPartialResponse(event, handleRecord(startBatch(event.Records)), new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false }),
  );
}
