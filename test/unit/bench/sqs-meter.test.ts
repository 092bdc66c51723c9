import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { sqsQueue } from '#shared/adapters/queue.ts';
import { emptyQueueUsage, meterSqs, type QueueUsage } from '../../bench/cost/sqs-meter.ts';

const sms = (text: string) => ({ id: 'msg_1', channel: 'sms' as const, to: '+15550100', text });

describe("the cost bench's SQS meter (test/bench/cost/sqs-meter.ts)", () => {
  it("counts the queue adapter's sends while recording, billed per 64 KB of bodies, by catalog queue", async () => {
    const sqs = mockClient(SQSClient);
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: input.Entries!.map((e) => ({ Id: e.Id!, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'md5' })),
      Failed: [],
    }));
    const sendBefore = SQSClient.prototype.send;
    const usage = new Map<string, QueueUsage>();
    let recording = false;
    meterSqs({ recording: () => recording, usage: (queueId) => usage.get(queueId) ?? usage.set(queueId, emptyQueueUsage()).get(queueId)! });
    try {
      const queue = sqsQueue({ QUEUE_URL_NOTIFY: 'http://127.0.0.1:9324/000000000000/aos-local-notify' }, { client: new SQSClient({}) });
      await queue.send('notify', [sms('before recording')]);
      recording = true;
      await queue.send('notify', [sms('x'.repeat(70 * 1024)), ...Array.from({ length: 11 }, (_, i) => sms(`message ${i}`))]);
    } finally {
      SQSClient.prototype.send = sendBefore;
      sqs.restore();
    }
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
    expect(usage.get('notify')).toMatchObject({ sendCalls: 2, messagesSent: 12, billedRequests: 3 });
  });
});
