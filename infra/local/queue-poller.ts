import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { LOCAL_ACCOUNT } from './local-account.ts';
import { errorText, type Log } from './log.ts';
import type { LocalQueue } from './sqs.ts';

export interface QueuePoller {
  /** Polls now rather than after the idle pause, e.g. because a message has just been sent. */
  wake(): void;
  /** Finishes the batch in hand, then stops. */
  stop(): Promise<void>;
}

/** SQS hands out at most 10 messages per receive. */
const MAX_RECEIVE = 10;
/**
 * Pause after an empty receive; a send to the poller's queue, or a drain, ends it early (see wake).
 * Short polls plus this pause instead of long polling, so that stop() and a drain never wait out a
 * long poll.
 */
const IDLE_PAUSE_MS = 1000;

/**
 * Lambda's SQS event source mapping with ReportBatchItemFailures: receive a batch, invoke the consumer
 * with an SQS event, delete the messages it did not report as failed. Failed messages (all of them,
 * when the consumer throws) reappear after the visibility timeout; the queue's redrive policy moves
 * them to the DLQ after maxReceiveCount receives.
 */
export function startQueuePoller(sqs: SQSClient, queue: LocalQueue, consume: (event: SQSEvent) => Promise<unknown>, log: Log): QueuePoller {
  const label = `[queue ${queue.def.id}]`;
  const pause = wakeablePause();
  let stopping = false;

  async function pollOnce(): Promise<number> {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: Math.min(queue.def.batchSize, MAX_RECEIVE),
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return 0;
    const records = Messages.map((m) => toSqsRecord(m, queue.arn));
    const failed = await failedMessageIds(records);
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      const { Failed = [] } = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      for (const f of Failed) log(`${label} could not delete message ${done[Number(f.Id)]?.messageId}: ${f.Message}`);
    }
    return Messages.length;
  }

  async function failedMessageIds(records: SQSRecord[]): Promise<Set<string>> {
    try {
      const failed = reportedFailures(await consume({ Records: records }), records);
      if (failed.size > 0)
        logFailures(
          records.filter((r) => failed.has(r.messageId)),
          'reported as failed',
        );
      return failed;
    } catch (err) {
      log(`${label} consumer threw: ${errorText(err)}`);
      logFailures(records, 'failed with the batch');
      return new Set(records.map((r) => r.messageId));
    }
  }

  function logFailures(records: SQSRecord[], how: string) {
    const { visibilityTimeoutSeconds, maxReceiveCount } = queue.def;
    for (const r of records) {
      const attempt = Number(r.attributes.ApproximateReceiveCount);
      const next = attempt >= maxReceiveCount ? 'it goes to the dead-letter queue' : `retry after ${visibilityTimeoutSeconds}s`;
      log(`${label} message ${r.messageId} ${how} (receive ${attempt} of ${maxReceiveCount}); ${next}`);
    }
  }

  const loop = (async () => {
    while (!stopping) {
      let received = 0;
      try {
        received = await pollOnce();
      } catch (err) {
        log(`${label} polling failed: ${errorText(err)}`);
      }
      if (received === 0 && !stopping) await pause.wait(IDLE_PAUSE_MS);
    }
  })();

  return {
    wake: pause.wake,
    async stop() {
      stopping = true;
      pause.wake();
      await loop;
    },
  };
}

/**
 * The message ids a consumer's response reports in `batchItemFailures`. As Lambda does, a response
 * naming an id that is not in the batch fails the whole batch.
 */
function reportedFailures(response: unknown, records: SQSRecord[]): Set<string> {
  const failures = (response as { batchItemFailures?: Array<{ itemIdentifier?: unknown }> } | null | undefined)?.batchItemFailures;
  const inBatch = new Set(records.map((r) => r.messageId));
  const ids = (failures ?? []).map((f) => f.itemIdentifier);
  if (ids.some((id) => typeof id !== 'string' || !inBatch.has(id))) return inBatch;
  return new Set(ids as string[]);
}

/** One record of the event Lambda's event source mapping builds from a received message. */
function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
          ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
          stringListValues: [],
          binaryListValues: [],
          dataType: value.DataType!,
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody!,
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_ACCOUNT.region,
  };
}

/** A pause that wake() ends early; a wake() between pauses makes the next one end at once. */
function wakeablePause() {
  let wakeUp: (() => void) | undefined;
  let wokenEarly = false;
  return {
    wait(ms: number) {
      if (wokenEarly) {
        wokenEarly = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      });
    },
    wake() {
      if (wakeUp) wakeUp();
      else wokenEarly = true;
    },
  };
}
