import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BadRequestException, MessageRejected, SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { InvalidParameterException, InvalidParameterValueException, OptedOutException, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { OutboundMessage } from '../domain/notifications/messages.ts';
import { type Mailer, type SmsSender, UndeliverableError } from '../domain/notifications/ports.ts';
import type { Clock } from '../domain/ports.ts';
import { traced } from '../observability/tracer.ts';
import { clientSettings } from './aws-clients.ts';

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

/** SES refuses a recipient for good with MessageRejected (rejected or unverified address) or BadRequest (malformed address). */
const sesRefusal = (err: unknown) => (err instanceof MessageRejected || err instanceof BadRequestException ? err.name : undefined);
/** SNS refuses a phone number for good when it is invalid or opted out. */
const snsRefusal = (err: unknown) =>
  err instanceof InvalidParameterException || err instanceof InvalidParameterValueException || err instanceof OptedOutException ? err.name : undefined;

/** The notify worker's clients: throttling, transient failures and the network are retried (three attempts in all), then surface and the queue retries the message. */
const messagingClient = <C extends object>(Client: new (settings: ReturnType<typeof clientSettings>) => C): C =>
  traced(new Client(clientSettings({ attempts: 3, attemptTimeoutMs: 10_000 })));

export function sesMailer(from: string, client: SESv2Client = messagingClient(SESv2Client)): Mailer {
  return {
    async sendEmail(m) {
      await refusedFor(
        () =>
          client.send(
            new SendEmailCommand({
              FromEmailAddress: from,
              Destination: { ToAddresses: [m.to] },
              Content: { Simple: { Subject: { Data: m.subject, Charset: 'UTF-8' }, Body: { Text: { Data: m.text, Charset: 'UTF-8' } } } },
            }),
          ),
        sesRefusal,
        'e-mail',
      );
    },
  };
}

export function snsSmsSender(client: SNSClient = messagingClient(SNSClient)): SmsSender {
  return {
    async sendSms(m) {
      await refusedFor(
        () =>
          client.send(
            new PublishCommand({
              PhoneNumber: m.to,
              Message: m.text,
              MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
            }),
          ),
        snsRefusal,
        'SMS',
      );
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
    await writeFile(file, `${JSON.stringify({ ...rest, createdAt }, null, 2)}\n`);
  }
  return { sendEmail: write, sendSms: write };
}

export interface MessagingPorts {
  mailer: Mailer;
  sms: SmsSender;
}

/** SES and SNS on AWS, the outbox locally, as configured (the notify worker's adapters). */
export function configuredMessaging(
  settings: { outboxDir?: string; mailTransport: 'ses' | 'outbox'; smsTransport: 'sns' | 'outbox'; mailFrom: string },
  clock: Clock,
): MessagingPorts {
  const localOutbox = settings.outboxDir ? outbox(settings.outboxDir, clock) : undefined;
  return {
    mailer: settings.mailTransport === 'outbox' && localOutbox ? localOutbox : sesMailer(settings.mailFrom),
    sms: settings.smsTransport === 'outbox' && localOutbox ? localOutbox : snsSmsSender(),
  };
}
