import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sqsQueue } from '../../../shared/adapters/queue.ts';
import { emptyQueueUsage, meterSqs, type QueueUsage } from '../../bench/cost/sqs-meter.ts';
import { CREDENTIALS, fakeAwsService, type Received } from '../../support/fake-aws.ts';

describe("the cost bench's SQS meter (test/bench/cost/sqs-meter.ts)", () => {
  const fake = fakeAwsService('application/x-amz-json-1.0');
  const accepted = (request: Received) => {
    const { Entries } = JSON.parse(request.body) as { Entries: { Id: string; MessageBody: string }[] };
    const Successful = Entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex') }));
    return { status: 200, body: JSON.stringify({ Successful, Failed: [] }) };
  };

  it("counts the queue adapter's sends while recording, billed per 64 KB of bodies, by catalog queue", async () => {
    const usage = new Map<string, QueueUsage>();
    let recording = false;
    const fetchBefore = globalThis.fetch;
    meterSqs({ recording: () => recording, usage: (queueId) => usage.get(queueId) ?? usage.set(queueId, emptyQueueUsage()).get(queueId)! });
    try {
      fake.answers = [accepted];
      const queue = sqsQueue({ QUEUE_URL_NOTIFY: new URL('000000000000/aos-local-notify', fake.endpoint).href, AWS_REGION: 'us-east-1' }, { credentials: CREDENTIALS });
      await queue.send('notify', [{ before: 'recording' }]);
      recording = true;
      await queue.send('notify', [{ a: 'x'.repeat(70 * 1024) }, ...Array.from({ length: 11 }, (_, i) => ({ i }))]);
    } finally {
      globalThis.fetch = fetchBefore;
    }
    expect(fake.received).toHaveLength(3);
    expect(usage.get('notify')).toMatchObject({ sendCalls: 2, messagesSent: 12, billedRequests: 3 });
  });
});
