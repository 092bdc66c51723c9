import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { outbox } from '#shared/adapters/mailer.ts';
import type { AlertConfigPatch } from '#shared/domain/alerts/config.ts';
import type { AlertNotificationJob, EmailMessage, SmsMessage } from '#shared/domain/notifications/messages.ts';
import type { PlanKey } from '#shared/domain/plans/plans.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { Store } from '#shared/domain/store.ts';
import { type NotifyPorts, notifyHandler } from '../../functions/workers/notify.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { lambdaContext } from '../support/http-event.ts';

// No plan lacks the alerts entitlement today; here the starter plan has none, to prove it is honoured.
vi.mock('#shared/domain/plans/plans.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#shared/domain/plans/plans.ts')>();
  const starter = { ...actual.PLANS.starter, features: { ...actual.PLANS.starter.features, alerts: false } };
  return { ...actual, PLANS: { ...actual.PLANS, starter } };
});

let store: Store;
let stop: () => Promise<void>;
const outboxDirs: string[] = [];
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-notify'));
});
afterAll(async () => {
  await stop();
  await Promise.all(outboxDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const T0 = Date.parse('2026-11-20T10:00:00Z');
let now = T0;
const clock = { now: () => new Date(now) };
const advanceMinutes = (minutes: number) => void (now += minutes * 60_000);

let n = 0;
const sqsEvent = (job: AlertNotificationJob): SQSEvent =>
  ({ Records: [{ messageId: `m${++n}`, body: JSON.stringify(job), attributes: { ApproximateReceiveCount: '1' } }] }) as unknown as SQSEvent;

interface OutboxEntry {
  channel: 'email' | 'sms';
  to: string;
  subject?: string;
  text: string;
}

/**
 * A tenant with one agent, support-bot, configured as given, whose notifications go through the notify
 * worker to an outbox of its own. `occur` records one more occurrence of a type and runs its job.
 */
async function tenantWithAgent(alertConfig: AlertConfigPatch, options: { plan?: PlanKey; notificationsPerHour?: number } = {}) {
  const tenantId = `tnt_notify_${++n}`;
  const agentId = `agt_notify_${n}`;
  const createdAt = new Date(now).toISOString();
  await store.tenants.create({
    id: tenantId,
    ownerUserId: 'usr_x',
    subscription: { ...newTrialSubscription(new Date(now)), plan: options.plan ?? 'trial' },
    createdAt,
  });
  await store.agents.create(agentRecord(tenantId, agentId, createdAt, { name: 'support-bot', source: 'explicit', alertConfig }));

  const dir = await mkdtemp(join(tmpdir(), 'aos-outbox-'));
  outboxDirs.push(dir);
  const box = outbox(dir, clock);
  const failNextSendTo = new Set<string>();
  const send = async (m: EmailMessage | SmsMessage) => {
    if (failNextSendTo.delete(m.to)) throw Object.assign(new Error('Throttling: Rate exceeded'), { name: 'Throttling' });
    await (m.channel === 'email' ? box.sendEmail(m) : box.sendSms(m));
  };
  const ports = { store, clock, mailer: { sendEmail: send }, sms: { sendSms: send } } as unknown as NotifyPorts;
  const handler = notifyHandler(() => ports, { publicAppUrl: 'http://127.0.0.1:3000', notificationsPerHour: options.notificationsPerHour ?? 60 });

  const seen = new Set<string>();
  let traces = 0;
  return {
    tenantId,
    agentId,
    failNextSendTo,
    run: (job: AlertNotificationJob) => handler(sqsEvent(job), lambdaContext),
    async occur(type = 'error') {
      const traceId = `trace-${++traces}`;
      const key = `${type}:${traceId}:-`;
      const { alert } = await store.alerts.recordOccurrence(
        tenantId,
        {
          agentId,
          agentName: 'support-bot',
          type,
          category: 'threshold',
          severity: 'high',
          message: 'llm span "answer" failed: RateLimitError',
          value: null,
          threshold: null,
          reasoning: null,
          traceId,
          key,
          at: clock.now(),
          recordedAt: clock.now(),
        },
        () => randomIds.next('alr'),
      );
      const job: AlertNotificationJob = { kind: 'alert-notification', tenantId, alertId: alert.id, occurrenceKey: key };
      const result = await handler(sqsEvent(job), lambdaContext);
      return { job, result };
    },
    /** The outbox entries written since the last call. */
    async newMessages(): Promise<OutboxEntry[]> {
      const files = (await readdir(dir)).filter((f) => !seen.has(f)).sort();
      for (const f of files) seen.add(f);
      return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as OutboxEntry));
    },
  };
}

const recipients = (entries: OutboxEntry[]) => entries.map((e) => `${e.channel}:${e.to}`).sort();

const contacts = {
  email: [
    { address: 'oncall@example.com', enabled: true },
    { address: 'away@example.com', enabled: false },
  ],
  sms: [
    { phoneNumber: '+14155550100', enabled: true },
    { phoneNumber: '+14155550199', enabled: false },
  ],
};

describe('alert notifications through the notify worker (dynalite, outbox)', () => {
  it("sends to exactly the enabled contacts on the type's channels", async () => {
    const tenant = await tenantWithAgent({ contacts, alertTypes: { error: { channels: ['email', 'sms'] }, highCost: { channels: ['email'] } } });
    expect((await tenant.occur('error')).result.batchItemFailures).toEqual([]);
    const first = await tenant.newMessages();
    expect(recipients(first)).toEqual(['email:oncall@example.com', 'sms:+14155550100']);
    const email = first.find((m) => m.channel === 'email')!;
    expect(email.subject).toBe('[HIGH] support-bot: error alert');
    expect(email.text).toContain('http://127.0.0.1:3000/traces/trace-1');
    expect(first.find((m) => m.channel === 'sms')!.text).toBe('[HIGH] support-bot error: llm span "answer" failed: RateLimitError');

    await tenant.occur('highCost');
    expect(recipients(await tenant.newMessages())).toEqual(['email:oncall@example.com']);
  });

  it('names the agent as it is named now, though the alert was raised under an earlier name', async () => {
    const tenant = await tenantWithAgent({ contacts, alertTypes: { error: { cooldownMinutes: 0 } } });
    await tenant.occur('error');
    await tenant.newMessages();
    await store.agents.update(tenant.tenantId, tenant.agentId, { name: 'helpdesk-bot' }, new Date(now));
    await tenant.occur('error');
    const email = (await tenant.newMessages()).find((m) => m.channel === 'email')!;
    expect(email.subject).toBe('[HIGH] helpdesk-bot: error alert');
  });

  it('counts occurrences inside the cooldown without sending, and sends again after it', async () => {
    const tenant = await tenantWithAgent({ contacts });
    await tenant.occur();
    expect(await tenant.newMessages()).toHaveLength(1);
    advanceMinutes(2);
    await tenant.occur();
    await tenant.occur();
    expect(await tenant.newMessages()).toEqual([]);
    advanceMinutes(3);
    await tenant.occur();
    const [after] = await tenant.newMessages();
    expect(after?.text).toContain('Occurrences: 4');
  });

  it("caps a storm at the tenant's hourly limit, and sends again the next hour", async () => {
    const tenant = await tenantWithAgent({ contacts, alertTypes: { error: { channels: ['email', 'sms'], cooldownMinutes: 0 } } }, { notificationsPerHour: 5 });
    for (let i = 0; i < 10; i++) expect((await tenant.occur()).result.batchItemFailures).toEqual([]);
    expect(await tenant.newMessages()).toHaveLength(5);
    advanceMinutes(60);
    await tenant.occur();
    expect(await tenant.newMessages()).toHaveLength(2);
  });

  it('sends nothing on a plan without the alerts entitlement', async () => {
    const tenant = await tenantWithAgent({ contacts }, { plan: 'starter' });
    expect((await tenant.occur()).result.batchItemFailures).toEqual([]);
    expect(await tenant.newMessages()).toEqual([]);
  });

  it('a job retried after a failed send sends only what was missing', async () => {
    const tenant = await tenantWithAgent({
      contacts: {
        ...contacts,
        email: [
          { address: 'oncall@example.com', enabled: true },
          { address: 'flaky@example.com', enabled: true },
        ],
      },
      alertTypes: { error: { channels: ['email', 'sms'] } },
    });
    tenant.failNextSendTo.add('flaky@example.com');
    const { job, result } = await tenant.occur();
    expect(result.batchItemFailures).toHaveLength(1);
    expect(recipients(await tenant.newMessages())).toEqual(['email:oncall@example.com', 'sms:+14155550100']);

    advanceMinutes(1);
    expect((await tenant.run(job)).batchItemFailures).toEqual([]);
    expect(recipients(await tenant.newMessages())).toEqual(['email:flaky@example.com']);
    expect((await tenant.run(job)).batchItemFailures).toEqual([]);
    expect(await tenant.newMessages()).toEqual([]);
  });
});
