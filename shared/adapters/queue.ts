import { createHash } from 'node:crypto';
import { queueUrlEnv } from '../catalog.ts';
import { callAws, ROUTE_CALL_DEADLINE_MS, type AwsApi, type AwsCallOptions } from './aws-call.ts';

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

/** SQS's SendMessageBatch (AWS JSON 1.0): https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html */
const SQS: AwsApi = { name: 'SQS', signingName: 'sqs', endpointPrefix: 'sqs', endpointEnvId: 'SQS', protocol: 'json-rpc', queryCompatible: true };

interface BatchEntry {
  Id: string;
  MessageBody: string;
  DelaySeconds?: number;
}
interface BatchAnswer {
  Successful?: { Id?: unknown; MD5OfMessageBody?: unknown }[];
  Failed?: { Id?: unknown; SenderFault?: unknown }[];
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * One SendMessageBatch, to the queue URL's host as the SDK client sends it. Answers the ids SQS did not
 * accept (failed, or missing from its answer) and whether a failure was the sender's; like the SDK
 * client, it refuses an answer whose body checksums do not match what was sent.
 */
async function sendBatch(queueUrl: string, entries: readonly BatchEntry[], options: Partial<AwsCallOptions>): Promise<{ failedIds: Set<string>; senderFault: boolean }> {
  const answer = (await callAws(
    SQS,
    {
      name: 'SendMessageBatch',
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessageBatch', 'x-amzn-query-mode': 'true' },
      body: JSON.stringify({ QueueUrl: queueUrl, Entries: entries }),
    },
    { endpoint: new URL(new URL(queueUrl).origin), ...options },
  )) as BatchAnswer;
  const sent = new Map(entries.map((e) => [e.Id, e.MessageBody]));
  const accepted = new Set<string>();
  for (const { Id, MD5OfMessageBody } of answer.Successful ?? []) {
    const body = sent.get(String(Id));
    if (body === undefined || MD5OfMessageBody !== md5(body)) throw new QueueSendError(`SQS answered entry ${String(Id)} with a checksum that does not match its body`);
    accepted.add(String(Id));
  }
  return {
    failedIds: new Set(entries.filter((e) => !accepted.has(e.Id)).map((e) => e.Id)),
    senderFault: (answer.Failed ?? []).some((f) => f.SenderFault === true),
  };
}

/**
 * The queues named by `QUEUE_URL_<ID>` in `env`, which also gives the region. Credentials are Lambda's,
 * from the process environment, unless `options` gives others.
 */
export function sqsQueue(env: Record<string, string | undefined> = process.env, options: Partial<AwsCallOptions> & { deadlineMs?: number } = {}): QueuePort {
  const { deadlineMs = ROUTE_CALL_DEADLINE_MS, ...callOptions } = options;
  return {
    async send(queueId, messages, { delaySeconds = 0 } = {}) {
      const url = env[queueUrlEnv(queueId)];
      if (!url) throw new QueueSendError(`no URL configured for queue ${queueId}`);
      const settings = { env, ...callOptions, signal: AbortSignal.timeout(deadlineMs) };
      for (const batch of batchesOf(messages.map((m) => JSON.stringify(m)))) {
        let entries: BatchEntry[] = batch.map((MessageBody, j) => ({ Id: String(j), MessageBody, ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}) }));
        for (let attempt = 0; entries.length > 0; attempt++) {
          const { failedIds, senderFault } = await sendBatch(url, entries, settings);
          if (failedIds.size === 0) break;
          if (attempt === 2 || senderFault) {
            throw new QueueSendError(`queue ${queueId} refused ${failedIds.size} message(s)`);
          }
          entries = entries.filter((e) => failedIds.has(e.Id));
        }
      }
    },
  };
}
