import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../http/logger.ts';

/**
 * An SQS consumer that reports partial batch failures: records that fail are retried alone (and end
 * in the DLQ after the queue's maxReceiveCount), the rest are acknowledged.
 */
export function sqsBatchHandler(processRecord: (record: SQSRecord) => Promise<void>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    logger.resetKeys();
    const results = await Promise.allSettled(event.Records.map((record) => processRecord(record)));
    const batchItemFailures = results.flatMap((result, i) => {
      if (result.status === 'fulfilled') return [];
      const record = event.Records[i]!;
      logger.error('record failed; it will be retried', {
        messageId: record.messageId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        error: result.reason instanceof Error ? result.reason.message : String(result.reason),
      });
      return [{ itemIdentifier: record.messageId }];
    });
    return { batchItemFailures };
  };
}
