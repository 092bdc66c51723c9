import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type QueueId, queueUrlEnv } from '../catalog.ts';
import type { QueuePort } from '../domain/ports.ts';
import type { QueueName } from '../domain/queues.ts';
import { traced } from '../observability/tracer.ts';
import { clientSettings, deadline, ROUTE_CALL_DEADLINE_MS } from './aws-clients.ts';

export class QueueSendError extends Error {}

/** The catalog's queues are the domain's: every queue the domain sends to has its queue and consumer there, and no other. */
type Holds<T extends true> = T;
export type QueuesAgree = Holds<[Exclude<QueueName, QueueId>, Exclude<QueueId, QueueName>] extends [never, never] ? true : false>;

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

interface BatchEntry {
  Id: string;
  MessageBody: string;
  DelaySeconds?: number;
}

/**
 * The queues named by `QUEUE_URL_<ID>` in `env`. One SendMessageBatch per batch through the SDK's SQS
 * client, which sends to the queue URL's host, retries throttling and transient failures, and refuses
 * an answer whose body checksums do not match what was sent. Entries SQS did not accept are sent again
 * (three sends in all) unless the failure was the sender's. A route's sends end by its deadline, so a
 * hung queue answers 503 within the route's timeout.
 */
export function sqsQueue(
  env: Record<string, string | undefined> = process.env,
  {
    client = traced(new SQSClient(clientSettings({ attempts: 3, attemptTimeoutMs: 3000 }))),
    deadlineMs = ROUTE_CALL_DEADLINE_MS,
  }: { client?: SQSClient; deadlineMs?: number } = {},
): QueuePort {
  return {
    async send(queueId, messages, { delaySeconds = 0 } = {}) {
      const QueueUrl = env[queueUrlEnv(queueId)];
      if (!QueueUrl) throw new QueueSendError(`no URL configured for queue ${queueId}`);
      const options = deadline(deadlineMs);
      for (const batch of batchesOf(messages.map((m) => JSON.stringify(m)))) {
        let entries: BatchEntry[] = batch.map((MessageBody, j) => ({
          Id: String(j),
          MessageBody,
          ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
        }));
        for (let attempt = 0; entries.length > 0; attempt++) {
          const { Successful = [], Failed = [] } = await client.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }), options);
          const accepted = new Set(Successful.map((s) => s.Id));
          const failed = entries.filter((e) => !accepted.has(e.Id));
          if (failed.length === 0) break;
          if (attempt === 2 || Failed.some((f) => f.SenderFault)) {
            throw new QueueSendError(`queue ${queueId} refused ${failed.length} message(s)`);
          }
          entries = failed;
        }
      }
    },
  };
}
