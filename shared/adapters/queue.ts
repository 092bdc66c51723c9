import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlEnv } from '../catalog.ts';

export interface QueuePort {
  /** Resolves only once the queue has accepted every message; otherwise throws and nothing is acknowledged. */
  send(queueId: string, messages: readonly unknown[]): Promise<void>;
}

export class QueueSendError extends Error {}

const BATCH = 10;

export function sqsQueue(env: Record<string, string | undefined> = process.env, client = new SQSClient({})): QueuePort {
  return {
    async send(queueId, messages) {
      const url = env[queueUrlEnv(queueId)];
      if (!url) throw new QueueSendError(`no URL configured for queue ${queueId}`);
      for (let i = 0; i < messages.length; i += BATCH) {
        let entries = messages.slice(i, i + BATCH).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) }));
        for (let attempt = 0; entries.length > 0; attempt++) {
          const { Failed = [] } = await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
          if (Failed.length === 0) break;
          if (attempt === 2 || Failed.some((f) => f.SenderFault)) {
            throw new QueueSendError(`queue ${queueId} refused ${Failed.length} message(s)`);
          }
          const failedIds = new Set(Failed.map((f) => f.Id));
          entries = entries.filter((e) => failedIds.has(e.Id));
        }
      }
    },
  };
}
