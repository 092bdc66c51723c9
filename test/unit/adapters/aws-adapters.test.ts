import { BadRequestException, MailFromDomainNotVerifiedException, MessageRejected, SendEmailCommand, SESv2Client, TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { InvalidParameterException, OptedOutException, PublishCommand, SNSClient, ThrottledException } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { AwsServiceError } from '../../../shared/adapters/aws-call.ts';
import { sesMailer, snsSmsSender } from '../../../shared/adapters/mailer.ts';
import { QueueSendError, batchesOf, sqsQueue } from '../../../shared/adapters/queue.ts';
import { UndeliverableError } from '../../../shared/domain/notifications/deliver.ts';
import { CREDENTIALS, expectSameRequest, fakeAwsService, verifySignature, type Answer, type Received } from '../../support/fake-aws.ts';

const sns = mockClient(SNSClient);
beforeEach(() => sns.reset());

const email = { id: 'msg_1', channel: 'email' as const, to: 'ops@example.com', subject: 'Hello', text: 'Body' };
const sms = { id: 'msg_2', channel: 'sms' as const, to: '+14155550100', text: 'Alert' };

describe('SES mailer (SendEmail over SigV4)', () => {
  const fake = fakeAwsService('application/json');

  const REGION = 'eu-west-1';
  const mailer = () => sesMailer('alerts@example.com', { endpoint: fake.endpoint, credentials: CREDENTIALS, env: { AWS_REGION: REGION }, baseDelayMs: 1 });
  const sdk = () => new SESv2Client({ region: REGION, endpoint: fake.endpoint.href, credentials: CREDENTIALS, maxAttempts: 1 });
  const sdkSend = () =>
    sdk().send(
      new SendEmailCommand({
        FromEmailAddress: 'alerts@example.com',
        Destination: { ToAddresses: [email.to] },
        Content: { Simple: { Subject: { Data: email.subject, Charset: 'UTF-8' }, Body: { Text: { Data: email.text, Charset: 'UTF-8' } } } },
      }),
    );
  const refusal = (status: number, type: string, message: string): Answer => ({ status, body: JSON.stringify({ message }), headers: { 'x-amzn-errortype': `${type}:` } });

  it("sends a plain-text UTF-8 e-mail from the configured sender, as the SDK's SES v2 client sends it, signed", async () => {
    fake.answers = [{ status: 200, body: JSON.stringify({ MessageId: 'm-1' }) }];
    await mailer().sendEmail(email);
    await expect(sdkSend()).resolves.toMatchObject({ MessageId: 'm-1' });
    const [ours, theirs] = fake.received;
    expect(JSON.parse(ours!.body)).toEqual({
      FromEmailAddress: 'alerts@example.com',
      Destination: { ToAddresses: ['ops@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hello', Charset: 'UTF-8' }, Body: { Text: { Data: 'Body', Charset: 'UTF-8' } } } },
    });
    expectSameRequest(ours!, theirs!, { headers: ['content-type', 'x-amz-security-token'], scope: /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request$/ });
    await verifySignature(ours!, { service: 'ses', region: REGION });
  });

  it('retries throttling, then lets it surface so the queue retries the message', async () => {
    fake.answers = [refusal(429, 'TooManyRequestsException', 'Rate exceeded')];
    await expect(mailer().sendEmail(email)).rejects.toMatchObject({ code: 'TooManyRequestsException', retryable: true });
    expect(fake.received).toHaveLength(3);
    await expect(sdkSend()).rejects.toBeInstanceOf(TooManyRequestsException);
  });

  it('turns a refusal of the recipient (MessageRejected, BadRequest) into UndeliverableError at once, the cause kept', async () => {
    for (const [type, sdkClass] of [
      ['MessageRejected', MessageRejected],
      ['BadRequestException', BadRequestException],
    ] as const) {
      fake.received.length = 0;
      fake.answers = [refusal(400, type, 'Email address is not verified.')];
      const error = await mailer().sendEmail(email).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UndeliverableError);
      expect(error).toMatchObject({ message: `e-mail refused by the provider (${type})` });
      expect((error as Error).cause).toBeInstanceOf(AwsServiceError);
      expect(fake.received).toHaveLength(1);
      await expect(sdkSend()).rejects.toBeInstanceOf(sdkClass);
    }
  });

  it('lets a configuration fault surface as it is, for the dead-letter queue', async () => {
    fake.answers = [refusal(400, 'MailFromDomainNotVerifiedException', 'not verified')];
    const error = await mailer().sendEmail(email).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({ code: 'MailFromDomainNotVerifiedException', retryable: false });
    await expect(sdkSend()).rejects.toBeInstanceOf(MailFromDomainNotVerifiedException);
  });
});

describe('SNS SMS sender', () => {
  it('publishes a transactional SMS to the phone number', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 's-1' });
    await snsSmsSender(new SNSClient({})).sendSms(sms);
    expect(sns).toHaveReceivedCommandWith(PublishCommand, {
      PhoneNumber: '+14155550100',
      Message: 'Alert',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('lets throttling surface so the queue retries the message', async () => {
    sns.on(PublishCommand).rejects(new ThrottledException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(snsSmsSender(new SNSClient({})).sendSms(sms)).rejects.toBeInstanceOf(ThrottledException);
  });

  it('turns an invalid or opted-out number into UndeliverableError', async () => {
    sns.on(PublishCommand)
      .rejectsOnce(new InvalidParameterException({ message: 'Invalid parameter: PhoneNumber', $metadata: {} }))
      .rejectsOnce(new OptedOutException({ message: 'opted out', $metadata: {} }));
    const sender = snsSmsSender(new SNSClient({}));
    await expect(sender.sendSms(sms)).rejects.toBeInstanceOf(UndeliverableError);
    await expect(sender.sendSms(sms)).rejects.toBeInstanceOf(UndeliverableError);
  });
});

describe('SQS queue port (SendMessageBatch over SigV4)', () => {
  const fake = fakeAwsService('application/x-amz-json-1.0');

  const REGION = 'eu-west-1';
  const queueUrl = () => new URL('000000000000/aos-notify', fake.endpoint).href;
  /** The queue port with the fake's queue as QUEUE_URL_NOTIFY: addressed through the queue URL's host, as on AWS. */
  const queue = () => sqsQueue({ QUEUE_URL_NOTIFY: queueUrl(), AWS_REGION: REGION }, { credentials: CREDENTIALS, baseDelayMs: 1 });
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  type Entry = { Id: string; MessageBody: string; DelaySeconds?: number };
  const entriesOf = (request: Received): Entry[] => (JSON.parse(request.body) as { Entries: Entry[] }).Entries;
  /** SQS's answer: the entries `fail` names failed (as the sender's fault when `senderFault`), the others accepted with their checksums. */
  const batchAnswer =
    (fail: (entry: Entry) => boolean = () => false, senderFault = false): Answer =>
    (request) => {
      const entries = entriesOf(request);
      return {
        status: 200,
        body: JSON.stringify({
          Successful: entries.filter((e) => !fail(e)).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: md5(e.MessageBody) })),
          Failed: entries.filter(fail).map((e) => ({ Id: e.Id, SenderFault: senderFault, Code: senderFault ? 'InvalidMessageContents' : 'InternalError' })),
        }),
      };
    };

  it("sends what the SDK's SQS client sends, signed, to the queue URL's host", async () => {
    fake.answers = [batchAnswer()];
    await queue().send('notify', [{ a: 1 }, { b: 'ünïcode ✓' }], { delaySeconds: 30 });
    const sdk = new SQSClient({ region: REGION, credentials: CREDENTIALS });
    await sdk.send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: entriesOf(fake.received[0]!) }));
    const [ours, theirs] = fake.received;
    expectSameRequest(ours!, theirs!, { headers: ['content-type', 'x-amz-target', 'x-amzn-query-mode', 'x-amz-security-token'], scope: /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/sqs\/aws4_request$/ });
    await verifySignature(ours!, { service: 'sqs', region: REGION });
    expect(entriesOf(ours!)).toEqual([
      { Id: '0', MessageBody: '{"a":1}', DelaySeconds: 30 },
      { Id: '1', MessageBody: '{"b":"ünïcode ✓"}', DelaySeconds: 30 },
    ]);
  });

  it('sends in batches of ten, and delays no entry unless asked to', async () => {
    fake.answers = [batchAnswer()];
    await queue().send('notify', Array.from({ length: 23 }, (_, i) => ({ i })));
    expect(fake.received.map((r) => entriesOf(r).length)).toEqual([10, 10, 3]);
    expect(fake.received.flatMap(entriesOf).some((e) => 'DelaySeconds' in e)).toBe(false);
  });

  it('retries only the entries SQS failed, and succeeds when they go through', async () => {
    fake.answers = [batchAnswer((e) => e.Id === '1'), batchAnswer()];
    await queue().send('notify', [{ a: 1 }, { b: 2 }]);
    expect(entriesOf(fake.received[1]!)).toEqual([{ Id: '1', MessageBody: '{"b":2}' }]);
  });

  it('throws when entries keep failing, so the caller never reports them accepted', async () => {
    fake.answers = [batchAnswer(() => true)];
    await expect(queue().send('notify', [{ a: 1 }])).rejects.toBeInstanceOf(QueueSendError);
    expect(fake.received).toHaveLength(3);
  });

  it('throws at once on a sender fault', async () => {
    fake.answers = [batchAnswer(() => true, true)];
    await expect(queue().send('notify', [{ a: 1 }])).rejects.toBeInstanceOf(QueueSendError);
    expect(fake.received).toHaveLength(1);
  });

  it('refuses an answer whose checksum does not match what was sent, as the SDK client does', async () => {
    const tampered: Answer = (request) => ({ status: 200, body: JSON.stringify({ Successful: entriesOf(request).map((e) => ({ Id: e.Id, MessageId: 'm', MD5OfMessageBody: md5(`${e.MessageBody} `) })), Failed: [] }) });
    fake.answers = [tampered];
    await expect(queue().send('notify', [{ a: 1 }])).rejects.toThrow(/checksum that does not match/);
    const sdk = new SQSClient({ region: REGION, credentials: CREDENTIALS });
    await expect(sdk.send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: [{ Id: '0', MessageBody: '{"a":1}' }] }))).rejects.toThrow(/MD5/i);
  });

  it('retries throttling and server errors, then lets a queue outage surface', async () => {
    const refusal = (status: number, type: string): Answer => ({ status, body: JSON.stringify({ __type: `com.amazonaws.sqs#${type}`, message: 'no' }) });
    fake.answers = [refusal(400, 'RequestThrottled'), refusal(500, 'InternalError'), batchAnswer()];
    await queue().send('notify', [{ a: 1 }]);
    expect(fake.received).toHaveLength(3);
    fake.received.length = 0;
    fake.answers = [refusal(503, 'ServiceUnavailable')];
    await expect(queue().send('notify', [{ a: 1 }])).rejects.toMatchObject({ code: 'ServiceUnavailable', retryable: true });
    expect(fake.received).toHaveLength(3);
    fake.received.length = 0;
    fake.answers = [refusal(400, 'QueueDoesNotExist')];
    await expect(queue().send('notify', [{ a: 1 }])).rejects.toMatchObject({ code: 'QueueDoesNotExist', retryable: false });
    expect(fake.received).toHaveLength(1);
  });

  it("goes to the queue URL's host even when AWS_ENDPOINT_URL_SQS names another, as the SDK client does", async () => {
    fake.answers = [batchAnswer()];
    const nowhere = 'http://127.0.0.1:9/';
    await sqsQueue({ QUEUE_URL_NOTIFY: queueUrl(), AWS_REGION: REGION, AWS_ENDPOINT_URL_SQS: nowhere }, { credentials: CREDENTIALS }).send('notify', [{ a: 1 }]);
    const saved = process.env.AWS_ENDPOINT_URL_SQS;
    process.env.AWS_ENDPOINT_URL_SQS = nowhere;
    try {
      await new SQSClient({ region: REGION, credentials: CREDENTIALS }).send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: [{ Id: '0', MessageBody: '{"a":1}' }] }));
    } finally {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
      else process.env.AWS_ENDPOINT_URL_SQS = saved;
    }
    expect(fake.received).toHaveLength(2);
  });

  it('resends an entry SQS neither accepted nor failed', async () => {
    const silentOnSecond: Answer = (request) => {
      const [first] = entriesOf(request);
      return { status: 200, body: JSON.stringify({ Successful: [{ Id: first!.Id, MessageId: 'm', MD5OfMessageBody: md5(first!.MessageBody) }], Failed: [] }) };
    };
    fake.answers = [silentOnSecond];
    await queue().send('notify', [{ a: 1 }, { b: 2 }]);
    expect(fake.received.map((r) => entriesOf(r).map((e) => e.Id))).toEqual([['0', '1'], ['1']]);
  });

  it('gives up within its deadline when SQS does not answer, so a route can still answer 503', async () => {
    fake.answers = ['hang'];
    const started = Date.now();
    const sending = sqsQueue({ QUEUE_URL_NOTIFY: queueUrl(), AWS_REGION: REGION }, { credentials: CREDENTIALS, timeoutMs: 10_000, deadlineMs: 300 }).send('notify', [{ a: 1 }]);
    await expect(sending).rejects.toMatchObject({ retryable: true, message: expect.stringMatching(/^SQS could not be reached/) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.received).toHaveLength(1);
  });

  it('refuses a queue with no configured URL', async () => {
    await expect(sqsQueue({}).send('notify', [{}])).rejects.toThrow(/no URL configured/);
  });
});

describe('SQS batching', () => {
  it('keeps each SendMessageBatch within ten entries and 256 KiB', () => {
    const big = 'x'.repeat(100 * 1024);
    expect(batchesOf([big, big, big, 'a']).map((b) => b.length)).toEqual([2, 2]);
    expect(batchesOf(Array.from({ length: 25 }, () => 'a')).map((b) => b.length)).toEqual([10, 10, 5]);
    expect(batchesOf([])).toEqual([]);
  });
});
