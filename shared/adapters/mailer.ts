import { InvalidParameterException, InvalidParameterValueException, OptedOutException, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UndeliverableError } from '../domain/notifications/deliver.ts';
import type { EmailMessage, OutboundMessage, SmsMessage } from '../domain/notifications/messages.ts';
import { AwsServiceError, callAws, type AwsApi, type AwsCallOptions } from './aws-call.ts';
import type { Clock } from './clock.ts';

export interface Mailer {
  sendEmail(message: EmailMessage): Promise<void>;
}
export interface SmsSender {
  sendSms(message: SmsMessage): Promise<void>;
}

/** Turns the provider's refusals of this one recipient (`refusal` names them) into UndeliverableError; every other error stays as it is. */
async function refusedFor(send: () => Promise<unknown>, refusal: (err: unknown) => string | undefined, what: string): Promise<void> {
  try {
    await send();
  } catch (err) {
    const reason = refusal(err);
    if (reason) throw new UndeliverableError(`${what} refused by the provider (${reason})`, { cause: err });
    throw err;
  }
}

/** SES v2's SendEmail (REST JSON): https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html */
const SES: AwsApi = { name: 'SES', signingName: 'ses', endpointPrefix: 'email', endpointEnvId: 'SESV2', protocol: 'rest-json' };
/** SES refuses a recipient for good with MessageRejected (rejected or unverified address) or BadRequest (malformed address). */
const SES_REFUSALS = new Set(['MessageRejected', 'BadRequestException']);
const sesRefusal = (err: unknown) => (err instanceof AwsServiceError && SES_REFUSALS.has(err.code) ? err.code : undefined);
/** SNS refuses a phone number for good when it is invalid or opted out. */
const snsRefusal = (err: unknown) =>
  err instanceof InvalidParameterException || err instanceof InvalidParameterValueException || err instanceof OptedOutException ? err.name : undefined;

/** Throttling, transient failures (500, 502, 503, 504) and network failures are retried (three attempts in all), then surface: the queue retries the message. */
export function sesMailer(from: string, options: Partial<AwsCallOptions> = {}): Mailer {
  const settings = { timeoutMs: 10_000, ...options };
  return {
    async sendEmail(m) {
      await refusedFor(
        () =>
          callAws(
            SES,
            {
              name: 'SendEmail',
              path: '/v2/email/outbound-emails',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                FromEmailAddress: from,
                Destination: { ToAddresses: [m.to] },
                Content: { Simple: { Subject: { Data: m.subject, Charset: 'UTF-8' }, Body: { Text: { Data: m.text, Charset: 'UTF-8' } } } },
              }),
            },
            settings,
          ),
        sesRefusal,
        'e-mail',
      );
    },
  };
}

export function snsSmsSender(client = new SNSClient({})): SmsSender {
  return {
    async sendSms(m) {
      await refusedFor(() => client.send(
        new PublishCommand({
          PhoneNumber: m.to,
          Message: m.text,
          MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
        }),
      ), snsRefusal, 'SMS');
    },
  };
}

/**
 * The local stand-in for SES and SNS: one JSON file per message, `{channel, to, subject?, text, createdAt}`.
 * The file is named by the message id, so a redelivered message overwrites instead of duplicating.
 */
export function outbox(dir: string, clock: Clock): Mailer & SmsSender {
  async function write(m: OutboundMessage) {
    await mkdir(dir, { recursive: true });
    const createdAt = clock.now().toISOString();
    const { id, ...rest } = m;
    const file = join(dir, `${createdAt.replace(/[:.]/g, '-')}-${m.channel}-${id.replace(/[^\w-]/g, '')}.json`);
    await writeFile(file, JSON.stringify({ ...rest, createdAt }, null, 2) + '\n');
  }
  return { sendEmail: write, sendSms: write };
}

export interface MessagingPorts {
  mailer: Mailer;
  sms: SmsSender;
}

/** SES and SNS on AWS, the outbox locally, as configured (the notify worker's adapters). */
export function configuredMessaging(settings: { outboxDir?: string; mailTransport: 'ses' | 'outbox'; smsTransport: 'sns' | 'outbox'; mailFrom: string }, clock: Clock): MessagingPorts {
  const localOutbox = settings.outboxDir ? outbox(settings.outboxDir, clock) : undefined;
  return {
    mailer: settings.mailTransport === 'outbox' && localOutbox ? localOutbox : sesMailer(settings.mailFrom),
    sms: settings.smsTransport === 'outbox' && localOutbox ? localOutbox : snsSmsSender(),
  };
}
