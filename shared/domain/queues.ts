import type { EvaluationJob } from './evaluation/job-message.ts';
import type { IngestMessage } from './ingest/messages.ts';
import type { LakeMessage } from './lake/messages.ts';
import type { NotifyQueueMessage } from './notifications/messages.ts';

/**
 * Every queue of the service and what its messages carry: a send names its queue and its messages
 * are checked against it; each consumer parses them with the schema next to the type. The catalog
 * declares one queue (and consumer) per key.
 */
export interface QueueMessages {
  ingest: IngestMessage;
  notify: NotifyQueueMessage;
  evaluate: EvaluationJob;
  lake: LakeMessage;
}

export type QueueName = keyof QueueMessages;
