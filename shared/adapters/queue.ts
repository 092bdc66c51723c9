import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlEnv } from '../catalog.ts';

export interface SendOptions {
  /** Seconds before the messages can be received (SQS allows up to 900). */
  delaySeconds?: number;
}

export interface QueuePort {
  /** Resolves only once the queue has accepted every message; otherwise throws and nothing is acknowledged. */
  send(queueId: string, messages: readonly unknown[], options?: SendOptions): Promise<void>;
}

export class QueueSendError extends Error {}

const MAX_ENTRIES = 10;
/** SendMessageBatch takes at most 256 KiB across all of its entries. */
const MAX_BATCH_BYTES = 256 * 1024;

/** Groups bodies into batches SQS accepts: ten entries and 256 KiB at most. */
export function batchesOf(bodies: readonly string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body);
    if (current.length === MAX_ENTRIES || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(body);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function sqsQueue(env: Record<string, string | undefined> = process.env, client = new SQSClient({})): QueuePort {
  return {
    async send(queueId, messages, { delaySeconds = 0 } = {}) {
      const url = env[queueUrlEnv(queueId)];
      if (!url) throw new QueueSendError(`no URL configured for queue ${queueId}`);
      for (const batch of batchesOf(messages.map((m) => JSON.stringify(m)))) {
        let entries = batch.map((MessageBody, j) => ({ Id: String(j), MessageBody, ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}) }));
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
