import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQueue, type LocalQueue, type LocalSqs, startSqs } from '../../infra/local/sqs.ts';

const def = { id: 'work', consumer: 'test', batchSize: 10, visibilityTimeoutSeconds: 30, maxReceiveCount: 2 };

/** The local SQS endpoint over its LevelDB store, through the AWS SDK client as the service uses it. */
describe('the local queue', () => {
  let dir: string;
  let sqs: LocalSqs;
  let queue: LocalQueue;
  const start = async () => {
    sqs = await startSqs(dir);
    queue = await createQueue(sqs.client, 'aos-test', def);
  };
  const receive = (input: { VisibilityTimeout?: number; WaitTimeSeconds?: number; QueueUrl?: string; MaxNumberOfMessages?: number } = {}) =>
    sqs.client
      .send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
          ...input,
        }),
      )
      .then((r) => r.Messages ?? []);
  const send = (body: string, extra: { DelaySeconds?: number } = {}) =>
    sqs.client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body, ...extra }));
  const counts = async () => {
    const { Attributes = {} } = await sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] }));
    return [Attributes.ApproximateNumberOfMessages, Attributes.ApproximateNumberOfMessagesNotVisible, Attributes.ApproximateNumberOfMessagesDelayed].map(
      Number,
    );
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aos-queue-'));
    await start();
  });
  afterEach(async () => {
    await sqs.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the queue that got messages to its listeners, as its LocalQueue spells it', async () => {
    const other = await createQueue(sqs.client, 'aos-test', { ...def, id: 'other' });
    const told: string[] = [];
    sqs.onSend((name) => told.push(name));
    await send('one');
    await sqs.client.send(new SendMessageCommand({ QueueUrl: other.url, MessageBody: 'two' }));
    expect(told).toEqual(['aos-test-work', 'aos-test-other']);
    expect([queue.name, other.name]).toEqual(told);
  });

  it('keeps what it accepted across a restart, and hands out in flight messages again at once', async () => {
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [
          { Id: 'a', MessageBody: 'first', MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } } },
          { Id: 'b', MessageBody: 'second ünïcode ✓' },
        ],
      }),
    );
    const [inFlight] = await receive({ VisibilityTimeout: 600, MaxNumberOfMessages: 1 });
    expect(await counts()).toEqual([1, 1, 0]);
    await sqs.stop();
    await start();

    const again = await receive();
    expect(again.map((m) => m.Body).sort()).toEqual(['first', 'second ünïcode ✓']);
    const redelivered = again.find((m) => m.MessageId === inFlight!.MessageId)!;
    expect(redelivered.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(again.find((m) => m.Body === 'first')!.MessageAttributes).toEqual({ kind: { DataType: 'String', StringValue: 'test' } });
  });

  it('hides a received message for its visibility timeout, and only its latest receipt handle deletes it', async () => {
    await send('one');
    const [first] = await receive({ VisibilityTimeout: 1 });
    expect(await receive()).toEqual([]);
    expect(await counts()).toEqual([0, 1, 0]);
    const [second] = await receive({ WaitTimeSeconds: 3 });
    expect(second!.Attributes!.ApproximateReceiveCount).toBe('2');

    await sqs.client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: first!.ReceiptHandle }));
    expect(await counts()).toEqual([0, 1, 0]);
    await sqs.client.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: second!.ReceiptHandle }));
    expect(await counts()).toEqual([0, 0, 0]);
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue', async () => {
    await send('poison');
    for (let i = 0; i < def.maxReceiveCount; i++) expect(await receive({ VisibilityTimeout: 0 })).toHaveLength(1);
    expect(await receive()).toEqual([]);
    const dlqUrl = queue.url.replace(/-work$/, '-work-dlq');
    expect((await receive({ QueueUrl: dlqUrl })).map((m) => m.Body)).toEqual(['poison']);
  });

  it('holds a delayed message back, and a long poll ends when a message arrives', async () => {
    await send('later', { DelaySeconds: 1 });
    expect(await counts()).toEqual([0, 0, 1]);
    expect(await receive()).toEqual([]);
    const started = Date.now();
    const [later] = await receive({ WaitTimeSeconds: 5 });
    expect(later!.Body).toBe('later');
    expect(Date.now() - started).toBeLessThan(4000);

    const waiting = receive({ WaitTimeSeconds: 10 });
    await send('now');
    expect((await waiting).map((m) => m.Body)).toEqual(['now']);
  });

  it("refuses what SQS refuses, as the sender's fault", async () => {
    const tooLong = 'x'.repeat(256 * 1024 + 1);
    await expect(send(tooLong)).rejects.toSatisfy((err: unknown) => err instanceof SQSServiceException && err.$fault === 'client');
    await expect(
      sqs.client.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: [
            { Id: 'a', MessageBody: 'x'.repeat(200_000) },
            { Id: 'b', MessageBody: 'x'.repeat(100_000) },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'BatchRequestTooLong' });
    await expect(send('x', { DelaySeconds: 901 })).rejects.toMatchObject({ $fault: 'client' });
    await expect(sqs.client.send(new SendMessageCommand({ QueueUrl: `${queue.url}-missing`, MessageBody: 'x' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
    expect(await counts()).toEqual([0, 0, 0]);
  });
});
