import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailMessage, OutboundMessage, SmsMessage } from '../domain/notifications/messages.ts';
import type { Clock } from './clock.ts';

export interface Mailer {
  sendEmail(message: EmailMessage): Promise<void>;
}
export interface SmsSender {
  sendSms(message: SmsMessage): Promise<void>;
}

export function sesMailer(from: string, client = new SESv2Client({})): Mailer {
  return {
    async sendEmail(m) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [m.to] },
          Content: {
            Simple: {
              Subject: { Data: m.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: m.text, Charset: 'UTF-8' } },
            },
          },
        }),
      );
    },
  };
}

export function snsSmsSender(client = new SNSClient({})): SmsSender {
  return {
    async sendSms(m) {
      await client.send(
        new PublishCommand({
          PhoneNumber: m.to,
          Message: m.text,
          MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
        }),
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
