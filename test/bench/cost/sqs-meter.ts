import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { queues } from '#shared/catalog.ts';
import { PRICES } from './prices.ts';

/** One queue's requests, as SQS bills them. */
export interface QueueUsage {
  sendCalls: number;
  messagesSent: number;
  /** Receives that returned messages: the event source mapping's polls that invoke the consumer. */
  receiveCalls: number;
  /** Empty receives: the local poller's idle polls (on AWS, the mapping's long polls: a fixed monthly cost). */
  idleReceiveCalls: number;
  deleteCalls: number;
  otherCalls: number;
  /** Billed requests: each call once per started 64 KB of its payload (sent or received bodies). */
  billedRequests: number;
}

export const emptyQueueUsage = (): QueueUsage => ({
  sendCalls: 0,
  messagesSent: 0,
  receiveCalls: 0,
  idleReceiveCalls: 0,
  deleteCalls: 0,
  otherCalls: 0,
  billedRequests: 0,
});

const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / PRICES.sqs.chunkBytes));
const bodyBytes = (bodies: ReadonlyArray<string | undefined>) => bodies.reduce((sum, body) => sum + Buffer.byteLength(body ?? ''), 0);

/** The catalog queue a URL names (the local runtime names queues `<table>-<id>`, dead-letter queues `…-dlq`). */
function queueIdOf(url: unknown): string {
  const name = String(url).split('/').pop() ?? '';
  return queues.find((q) => name.endsWith(`-${q.id}`))?.id ?? name;
}

function countSend(usage: QueueUsage, entries: ReadonlyArray<{ MessageBody?: string }>): void {
  usage.sendCalls++;
  usage.messagesSent += entries.length;
  usage.billedRequests += chunks(bodyBytes(entries.map((e) => e.MessageBody)));
}

function count(usage: QueueUsage, command: unknown, output: unknown): void {
  if (command instanceof SendMessageBatchCommand) {
    countSend(usage, command.input.Entries ?? []);
  } else if (command instanceof ReceiveMessageCommand) {
    const messages: Message[] = (output as { Messages?: Message[] }).Messages ?? [];
    if (messages.length === 0) usage.idleReceiveCalls++;
    else {
      usage.receiveCalls++;
      usage.billedRequests += chunks(bodyBytes(messages.map((m) => m.Body)));
    }
  } else if (command instanceof DeleteMessageBatchCommand || command instanceof DeleteMessageCommand) {
    usage.deleteCalls++;
    usage.billedRequests++;
  } else if (command instanceof ChangeMessageVisibilityCommand || command instanceof ChangeMessageVisibilityBatchCommand) {
    usage.otherCalls++;
    usage.billedRequests++;
  }
}

export interface SqsMeterHooks {
  recording(): boolean;
  usage(queueId: string): QueueUsage;
}

/**
 * Counts, while recording, the message traffic of the process: the service's queue adapter
 * (SendMessageBatch, shared/adapters/queue.ts) and the local runtime's pollers, which do what Lambda's
 * event source mapping does on AWS (receives, deletes) and which AWS bills the same way. All are SQS
 * clients, counted where they are reached: the class's `send`. Queue bookkeeping (GetQueueAttributes
 * of the drain, CreateQueue) is not counted.
 */
export function meterSqs(hooks: SqsMeterHooks): void {
  const send = SQSClient.prototype.send as (this: SQSClient, command: unknown, ...rest: unknown[]) => unknown;
  SQSClient.prototype.send = function (this: SQSClient, command: unknown, ...rest: unknown[]) {
    const answer = send.call(this, command, ...rest);
    if (hooks.recording()) {
      const queueId = queueIdOf((command as { input?: { QueueUrl?: string } }).input?.QueueUrl);
      Promise.resolve(answer).then(
        (output) => count(hooks.usage(queueId), command, output),
        () => {},
      );
    }
    return answer;
  } as typeof SQSClient.prototype.send;
}
