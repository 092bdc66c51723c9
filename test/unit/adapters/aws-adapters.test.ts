import {
  BadRequestException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  SESv2Client,
  SendEmailCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import {
  InvalidParameterException,
  InvalidParameterValueException,
  OptedOutException,
  PublishCommand,
  SNSClient,
  ThrottledException,
} from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sesMailer, snsSmsSender } from '#shared/adapters/mailer.ts';
import { batchesOf, QueueSendError, sqsQueue } from '#shared/adapters/queue.ts';
import { UndeliverableError } from '#shared/domain/notifications/ports.ts';

const ses = mockClient(SESv2Client);
const sns = mockClient(SNSClient);
const sqs = mockClient(SQSClient);
beforeEach(() => {
  ses.reset();
  sns.reset();
  sqs.reset();
});

const email = { id: 'msg_1', channel: 'email' as const, to: 'ops@example.com', subject: 'Hello', text: 'Body' };
const sms = { id: 'msg_2', channel: 'sms' as const, to: '+14155550100', text: 'Alert' };
const metadata = { $metadata: {} };

/** The i-th of several notify queue messages: what the SQS port sends matters, not what they say. */
const nthSms = (i: number) => ({ ...sms, id: `msg_${i}`, text: `message ${i}` });

describe('SES mailer (SES v2 SendEmail)', () => {
  it('sends a plain-text UTF-8 e-mail from the configured sender', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await sesMailer('alerts@example.com', new SESv2Client({})).sendEmail(email);
    expect(ses).toHaveReceivedCommandExactlyOnceWith(SendEmailCommand, {
      FromEmailAddress: 'alerts@example.com',
      Destination: { ToAddresses: ['ops@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hello', Charset: 'UTF-8' }, Body: { Text: { Data: 'Body', Charset: 'UTF-8' } } } },
    });
  });

  it('turns a refusal of the recipient (MessageRejected, BadRequest) into UndeliverableError, the cause kept', async () => {
    for (const refusal of [
      new MessageRejected({ message: 'Email address is not verified.', ...metadata }),
      new BadRequestException({ message: 'Missing final @domain', ...metadata }),
    ]) {
      ses.reset();
      ses.on(SendEmailCommand).rejects(refusal);
      const err = await sesMailer('alerts@example.com', new SESv2Client({}))
        .sendEmail(email)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UndeliverableError);
      expect((err as Error).message).toContain(refusal.name);
      expect((err as Error).cause).toBe(refusal);
    }
  });

  it('lets throttling and a fault of the sender surface as they are, so the queue retries the message', async () => {
    for (const failure of [
      new TooManyRequestsException({ message: 'Rate exceeded', ...metadata }),
      new MailFromDomainNotVerifiedException({ message: 'not verified', ...metadata }),
    ]) {
      ses.reset();
      ses.on(SendEmailCommand).rejects(failure);
      await expect(sesMailer('alerts@example.com', new SESv2Client({})).sendEmail(email)).rejects.toBe(failure);
    }
  });
});

describe('SNS SMS sender', () => {
  it('publishes a transactional SMS to the number', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-2' });
    await snsSmsSender(new SNSClient({})).sendSms(sms);
    expect(sns).toHaveReceivedCommandExactlyOnceWith(PublishCommand, {
      PhoneNumber: '+14155550100',
      Message: 'Alert',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('settles an invalid or opted-out number as undeliverable, and lets throttling surface', async () => {
    for (const refusal of [
      new InvalidParameterException({ message: 'Invalid parameter: PhoneNumber', ...metadata }),
      new InvalidParameterValueException({ message: 'bad', ...metadata }),
      new OptedOutException({ message: 'opted out', ...metadata }),
    ]) {
      sns.reset();
      sns.on(PublishCommand).rejects(refusal);
      await expect(snsSmsSender(new SNSClient({})).sendSms(sms)).rejects.toBeInstanceOf(UndeliverableError);
    }
    sns.reset();
    const throttled = new ThrottledException({ message: 'slow down', ...metadata });
    sns.on(PublishCommand).rejects(throttled);
    await expect(snsSmsSender(new SNSClient({})).sendSms(sms)).rejects.toBe(throttled);
  });
});

describe('SQS queue port (SendMessageBatch)', () => {
  const env = { QUEUE_URL_NOTIFY: 'https://sqs.eu-west-1.amazonaws.com/000000000000/aos-notify' };
  const queue = () => sqsQueue(env, { client: new SQSClient({}) });
  const acceptAll = (input: SendMessageBatchCommandInput) => ({
    Successful: input.Entries!.map((e) => ({ Id: e.Id!, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'md5' })),
    Failed: [],
  });

  it('groups messages into batches of at most ten entries and 256 KiB', () => {
    expect(batchesOf(Array.from({ length: 23 }, () => 'x')).map((b) => b.length)).toEqual([10, 10, 3]);
    const big = 'x'.repeat(100 * 1024);
    expect(batchesOf([big, big, big, 'small']).map((b) => b.length)).toEqual([2, 2]);
  });

  it('sends each batch to the queue URL, with the delay asked for, under the route deadline', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(acceptAll);
    await queue().send(
      'notify',
      Array.from({ length: 12 }, (_, i) => nthSms(i)),
      { delaySeconds: 30 },
    );
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 2);
    expect(sqs).toHaveReceivedNthCommandWith(SendMessageBatchCommand, 1, {
      QueueUrl: env.QUEUE_URL_NOTIFY,
      Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: JSON.stringify(nthSms(i)), DelaySeconds: 30 })),
    });
    const [, options] = sqs.commandCalls(SendMessageBatchCommand)[0]!.args as unknown as [unknown, { abortSignal?: AbortSignal }];
    expect(options.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('sends again only the entries SQS did not accept, and gives up after three sends', async () => {
    let call = 0;
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      call++;
      if (call > 1) return acceptAll(input);
      return { Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] };
    });
    await queue().send('notify', [nthSms(1), nthSms(2)]);
    expect(sqs).toHaveReceivedNthCommandWith(SendMessageBatchCommand, 2, { Entries: [{ Id: '1', MessageBody: JSON.stringify(nthSms(2)) }] });

    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    await expect(queue().send('notify', [nthSms(1)])).rejects.toBeInstanceOf(QueueSendError);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 3);
  });

  it("refuses at once when a failure was the sender's, and when the queue has no URL", async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InvalidMessageContents', SenderFault: true }] });
    await expect(queue().send('notify', [nthSms(1)])).rejects.toBeInstanceOf(QueueSendError);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 1);
    await expect(sqsQueue({}, { client: new SQSClient({}) }).send('notify', [nthSms(0)])).rejects.toThrow(/no URL configured for queue notify/);
  });
});

describe('SQS queue port against a hung endpoint (the real SDK client, as the routes configure it)', () => {
  // Accepts connections and never answers: what a hung SQS looks like from the function.
  const sockets: Socket[] = [];
  const hung = createServer((socket) => void sockets.push(socket));
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    hung.close();
  });

  it('gives up by the route deadline, so the route can still answer 503 within its timeout', async () => {
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const { port } = hung.address() as { port: number };
    const url = `http://127.0.0.1:${port}/000000000000/aos-ingest`;
    sqs.restore(); // the last test of the file: the real client from here on
    const started = Date.now();
    const outcome = await sqsQueue({ QUEUE_URL_INGEST: url }, { deadlineMs: 1500 })
      .send('ingest', [{ kind: 'purge-agent', tenantId: 'tnt_1', agentId: 'agt_1' }])
      .catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).name).toMatch(/AbortError|TimeoutError/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(sockets.length).toBeGreaterThan(0);
  });
});
