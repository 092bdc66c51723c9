import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { EmailMessage, SmsMessage } from '#shared/domain/notifications/messages.ts';
import { UndeliverableError } from '#shared/domain/notifications/ports.ts';
import { metrics } from '#shared/observability/metrics.ts';
import { type NotifyPorts, notifyHandler } from '../../../functions/workers/notify.ts';
import { lambdaContext } from '../../support/http-event.ts';
import { agentRecord, alertRecord, notifyWorld, TENANT } from '../alerts/notify-world.ts';

function fakes(failFor: string[] = [], refuse: string[] = []) {
  const sent: Array<EmailMessage | SmsMessage> = [];
  const delivered = new Set<string>();
  const ports = {
    clock: { now: () => new Date() },
    mailer: {
      sendEmail: async (m: EmailMessage) => {
        if (failFor.includes(m.to)) throw new Error('SES outage');
        if (refuse.includes(m.to)) throw new UndeliverableError('e-mail refused by the provider (MessageRejected)');
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
  } as unknown as NotifyPorts;
  return { ports, sent, delivered };
}

const record = (messageId: string, body: unknown): SQSRecord =>
  ({ messageId, body: typeof body === 'string' ? body : JSON.stringify(body), attributes: { ApproximateReceiveCount: '1' } }) as unknown as SQSRecord;
const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const email = (id: string, to = 'a@example.com') => ({ id, channel: 'email', to, subject: 'S', text: 'T' });

describe('notify worker', () => {
  it('sends e-mail and SMS, acknowledges the whole batch and counts what it sent', async () => {
    const { ports, sent } = fakes();
    const added = vi.spyOn(metrics, 'addMetric');
    const result = await notifyHandler(() => ports)(
      event(record('1', email('m1')), record('2', { id: 'm2', channel: 'sms', to: '+14155550100', text: 'hi' })),
      lambdaContext,
    );
    expect(result.batchItemFailures).toEqual([]);
    expect(sent.map((m) => m.channel)).toEqual(['email', 'sms']);
    expect(added.mock.calls).toEqual([
      ['NotificationsSent', 'Count', 1],
      ['NotificationsSent', 'Count', 1],
    ]);
    added.mockRestore();
  });

  it('reports only the failed records, so only they are retried', async () => {
    const { ports, sent } = fakes(['down@example.com']);
    const result = await notifyHandler(() => ports)(
      event(record('1', email('m1')), record('2', email('m2', 'down@example.com')), record('3', 'not json')),
      lambdaContext,
    );
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['2', '3']);
    expect(sent).toHaveLength(1);
  });

  it('settles a message the provider refuses for good instead of retrying it into the dead-letter queue', async () => {
    const { ports, sent, delivered } = fakes([], ['bounces@example.com']);
    const result = await notifyHandler(() => ports)(event(record('1', email('m1', 'bounces@example.com')), record('2', email('m2'))), lambdaContext);
    expect(result.batchItemFailures).toEqual([]);
    expect(sent.map((m) => m.to)).toEqual(['a@example.com']);
    expect(delivered.has('m1')).toBe(true);
  });

  it('does not send a redelivered message twice', async () => {
    const { ports, sent } = fakes();
    const handler = notifyHandler(() => ports);
    await handler(event(record('1', email('m1'))), lambdaContext);
    await handler(event(record('1-again', email('m1'))), lambdaContext);
    expect(sent).toHaveLength(1);
  });
});

describe('notify worker: alert notification jobs', () => {
  function alertWorld() {
    const world = notifyWorld();
    world.addAlert(alertRecord());
    world.setAgent(agentRecord({ contacts: { email: [{ address: 'oncall@example.com', enabled: true }], sms: [] } }));
    const { alerts, agents, tenants, rateLimits, deliveries, mailer, sms, clock, settings } = world.deps;
    const ports = { store: { alerts, agents, tenants, rateLimits, deliveries }, mailer, sms, clock } as unknown as NotifyPorts;
    return { world, handler: notifyHandler(() => ports, settings) };
  }
  const job = { kind: 'alert-notification', tenantId: TENANT, alertId: 'alt_1', occurrenceKey: 'error:trace-latest:-' };

  it("turns a job into messages to the agent's contacts", async () => {
    const { world, handler } = alertWorld();
    expect((await handler(event(record('1', job)), lambdaContext)).batchItemFailures).toEqual([]);
    expect(world.sent).toMatchObject([{ channel: 'email', to: 'oncall@example.com', subject: '[HIGH] support-bot: error alert' }]);
  });

  it('retries a job whose send failed, and then sends only what was missing', async () => {
    const { world, handler } = alertWorld();
    world.failNextSendTo.add('oncall@example.com');
    expect((await handler(event(record('1', job)), lambdaContext)).batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
    expect((await handler(event(record('1', job)), lambdaContext)).batchItemFailures).toEqual([]);
    expect(world.takeSent()).toEqual(['email:oncall@example.com']);
  });

  it('fails a record that is neither a job nor a message', async () => {
    const { handler } = alertWorld();
    const result = await handler(event(record('1', { ...job, alertId: '' }), record('2', { kind: 'something-else' })), lambdaContext);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '1' }, { itemIdentifier: '2' }]);
  });
});
