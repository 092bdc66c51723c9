import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Ports } from '../../../shared/adapters/ports.ts';
import type { EmailMessage, SmsMessage } from '../../../shared/domain/notifications/messages.ts';
import { notifyHandler } from '../../../functions/workers/notify.ts';

function fakes(failFor: string[] = []) {
  const sent: Array<EmailMessage | SmsMessage> = [];
  const delivered = new Set<string>();
  const ports = {
    clock: { now: () => new Date() },
    mailer: {
      sendEmail: async (m: EmailMessage) => {
        if (failFor.includes(m.to)) throw new Error('SES outage');
        sent.push(m);
      },
    },
    sms: { sendSms: async (m: SmsMessage) => void sent.push(m) },
    store: {
      deliveries: {
        wasDelivered: async (id: string) => delivered.has(id),
        markDelivered: async (id: string) => void delivered.add(id),
      },
    },
  } as unknown as Ports;
  return { ports, sent };
}

const record = (messageId: string, body: unknown): SQSRecord =>
  ({ messageId, body: typeof body === 'string' ? body : JSON.stringify(body), attributes: { ApproximateReceiveCount: '1' } }) as unknown as SQSRecord;
const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const email = (id: string, to = 'a@example.com') => ({ id, channel: 'email', to, subject: 'S', text: 'T' });

describe('notify worker', () => {
  it('sends e-mail and SMS and acknowledges the whole batch', async () => {
    const { ports, sent } = fakes();
    const result = await notifyHandler(() => ports)(
      event(record('1', email('m1')), record('2', { id: 'm2', channel: 'sms', to: '+14155550100', text: 'hi' })),
    );
    expect(result.batchItemFailures).toEqual([]);
    expect(sent.map((m) => m.channel)).toEqual(['email', 'sms']);
  });

  it('reports only the failed records, so only they are retried', async () => {
    const { ports, sent } = fakes(['down@example.com']);
    const result = await notifyHandler(() => ports)(
      event(record('1', email('m1')), record('2', email('m2', 'down@example.com')), record('3', 'not json')),
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '2' }, { itemIdentifier: '3' }]);
    expect(sent).toHaveLength(1);
  });

  it('does not send a redelivered message twice', async () => {
    const { ports, sent } = fakes();
    const handler = notifyHandler(() => ports);
    await handler(event(record('1', email('m1'))));
    await handler(event(record('1-again', email('m1'))));
    expect(sent).toHaveLength(1);
  });
});
