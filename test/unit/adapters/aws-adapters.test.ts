import { BadRequestException, MailFromDomainNotVerifiedException, MessageRejected, SendEmailCommand, SESv2Client, TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { InvalidParameterException, OptedOutException, PublishCommand, SNSClient, ThrottledException } from '@aws-sdk/client-sns';
import { UndeliverableError } from '../../../shared/domain/notifications/deliver.ts';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { sesMailer, snsSmsSender } from '../../../shared/adapters/mailer.ts';
import { QueueSendError, batchesOf, sqsQueue } from '../../../shared/adapters/queue.ts';

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

describe('SES mailer', () => {
  it('sends a plain-text UTF-8 e-mail from the configured sender', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await sesMailer('alerts@example.com', new SESv2Client({})).sendEmail(email);
    expect(ses).toHaveReceivedCommandWith(SendEmailCommand, {
      FromEmailAddress: 'alerts@example.com',
      Destination: { ToAddresses: ['ops@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hello', Charset: 'UTF-8' }, Body: { Text: { Data: 'Body', Charset: 'UTF-8' } } } },
    });
  });

  it('lets throttling surface so the queue retries the message', async () => {
    ses.on(SendEmailCommand).rejects(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(sesMailer('a@example.com', new SESv2Client({})).sendEmail(email)).rejects.toBeInstanceOf(TooManyRequestsException);
  });

  it('turns a refusal of the recipient (MessageRejected, BadRequest) into UndeliverableError, the cause kept', async () => {
    const rejected = new MessageRejected({ message: 'Email address is not verified.', $metadata: {} });
    ses.on(SendEmailCommand).rejectsOnce(rejected).rejectsOnce(new BadRequestException({ message: 'Invalid address', $metadata: {} }));
    const mailer = sesMailer('a@example.com', new SESv2Client({}));
    await expect(mailer.sendEmail(email)).rejects.toSatisfy((err) => err instanceof UndeliverableError && err.cause === rejected);
    await expect(mailer.sendEmail(email)).rejects.toBeInstanceOf(UndeliverableError);
  });

  it('lets a configuration fault surface as it is, for the dead-letter queue', async () => {
    ses.on(SendEmailCommand).rejects(new MailFromDomainNotVerifiedException({ message: 'not verified', $metadata: {} }));
    await expect(sesMailer('a@example.com', new SESv2Client({})).sendEmail(email)).rejects.toBeInstanceOf(MailFromDomainNotVerifiedException);
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

describe('SQS queue port', () => {
  const env = { QUEUE_URL_NOTIFY: 'https://sqs.local/000/notify' };

  it('sends in batches of ten', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await sqsQueue(env, new SQSClient({})).send('notify', Array.from({ length: 23 }, (_, i) => ({ i })));
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 3);
  });

  it('delays every entry when asked to, and none otherwise', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await sqsQueue(env, new SQSClient({})).send('notify', [{ a: 1 }, { b: 2 }], { delaySeconds: 300 });
    await sqsQueue(env, new SQSClient({})).send('notify', [{ c: 3 }]);
    const [delayed, immediate] = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries!);
    expect(delayed!.map((e) => e.DelaySeconds)).toEqual([300, 300]);
    expect(immediate!.map((e) => e.DelaySeconds)).toEqual([undefined]);
  });

  it('retries only the entries SQS failed, and succeeds when they go through', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [{ Id: '0', MessageId: 'a', MD5OfMessageBody: '' }], Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] })
      .resolves({ Successful: [{ Id: '1', MessageId: 'b', MD5OfMessageBody: '' }], Failed: [] });
    await sqsQueue(env, new SQSClient({})).send('notify', [{ a: 1 }, { b: 2 }]);
    const second = sqs.commandCalls(SendMessageBatchCommand)[1]!.args[0].input;
    expect(second.Entries).toEqual([{ Id: '1', MessageBody: '{"b":2}' }]);
  });

  it('throws when entries keep failing, so the caller never reports them accepted', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }] });
    await expect(sqsQueue(env, new SQSClient({})).send('notify', [{ a: 1 }])).rejects.toBeInstanceOf(QueueSendError);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 3);
  });

  it('throws at once on a sender fault', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidMessageContents' }] });
    await expect(sqsQueue(env, new SQSClient({})).send('notify', [{ a: 1 }])).rejects.toBeInstanceOf(QueueSendError);
    expect(sqs).toHaveReceivedCommandTimes(SendMessageBatchCommand, 1);
  });

  it('refuses a queue with no configured URL', async () => {
    await expect(sqsQueue({}, new SQSClient({})).send('notify', [{}])).rejects.toThrow(/no URL configured/);
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
