import { describe, expect, it, vi } from 'vitest';
import { processAlertNotification } from '#shared/domain/alerts/notify.ts';
import type { AlertNotificationJob } from '#shared/domain/notifications/messages.ts';
import { agentRecord, alertRecord, notifyWorld, TENANT } from './notify-world.ts';

// No plan lacks the alerts entitlement today; here the starter plan has none, to prove it is honoured.
vi.mock('#shared/domain/plans/plans.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#shared/domain/plans/plans.ts')>();
  const starter = { ...actual.PLANS.starter, features: { ...actual.PLANS.starter.features, alerts: false } };
  return { ...actual, PLANS: { ...actual.PLANS, starter } };
});

const job = (occurrenceKey: string, alertId = 'alt_1'): AlertNotificationJob => ({ kind: 'alert-notification', tenantId: TENANT, alertId, occurrenceKey });

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

/** A world with one open error alert on support-bot, whose contacts are the above. */
function errorAlertWorld(alertConfig: Parameters<typeof agentRecord>[0] = {}, options: Parameters<typeof notifyWorld>[0] = {}) {
  const world = notifyWorld(options);
  world.addAlert(alertRecord());
  world.setAgent(agentRecord({ contacts, ...alertConfig }));
  return world;
}

const bothChannels = { alertTypes: { error: { channels: ['email' as const, 'sms' as const] } } };

describe('processAlertNotification: recipients', () => {
  it("sends to the enabled contacts of the type's channels only", async () => {
    const world = errorAlertWorld(bothChannels);
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 2, alreadySent: 0, rateLimited: 0, undeliverable: 0 });
    expect(world.takeSent()).toEqual(['email:oncall@example.com', 'sms:+14155550100']);
  });

  it('uses e-mail alone when the type keeps the default channels', async () => {
    const world = errorAlertWorld();
    await processAlertNotification(job('o1'), world.deps);
    expect(world.takeSent()).toEqual(['email:oncall@example.com']);
  });

  it('leaves a channel out when the type does not list it', async () => {
    const world = errorAlertWorld({ alertTypes: { error: { channels: ['sms'] } } });
    await processAlertNotification(job('o1'), world.deps);
    expect(world.takeSent()).toEqual(['sms:+14155550100']);
  });

  it('sends once to an address listed twice', async () => {
    const world = errorAlertWorld({
      contacts: {
        email: [
          { address: 'ops@example.com', enabled: true },
          { address: 'OPS@example.com', enabled: true },
        ],
      },
    });
    await processAlertNotification(job('o1'), world.deps);
    expect(world.takeSent()).toEqual(['email:ops@example.com']);
  });

  it('notifies for LLM-analysed types through their own options', async () => {
    const world = notifyWorld();
    world.addAlert(
      alertRecord({
        type: 'hallucination',
        category: 'llm',
        severity: 'high',
        value: 0.9,
        threshold: 0.7,
        reasoning: 'Cites a refund policy that does not exist.',
      }),
    );
    world.setAgent(agentRecord({ contacts, llmAnalysis: { enabled: true, alertTypes: { hallucination: { channels: ['sms'] } } } }));
    await processAlertNotification(job('o1'), world.deps);
    expect(world.takeSent()).toEqual(['sms:+14155550100']);
  });
});

describe('processAlertNotification: sends nothing', () => {
  it('for an alert that no longer exists', async () => {
    const world = errorAlertWorld();
    expect(await processAlertNotification(job('o1', 'alt_gone'), world.deps)).toEqual({ outcome: 'alert-gone' });
    expect(world.sent).toEqual([]);
  });

  it('for a disabled type', async () => {
    const world = errorAlertWorld({ alertTypes: { error: { enabled: false } } });
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'type-disabled' });
    expect(world.sent).toEqual([]);
  });

  it('for a plan without the alerts entitlement, or a tenant that is gone', async () => {
    const starter = errorAlertWorld({}, { plan: 'starter' });
    expect(await processAlertNotification(job('o1'), starter.deps)).toEqual({ outcome: 'not-entitled' });
    const gone = errorAlertWorld();
    gone.tenants.clear();
    expect(await processAlertNotification(job('o1'), gone.deps)).toEqual({ outcome: 'not-entitled' });
    expect([...starter.sent, ...gone.sent]).toEqual([]);
  });

  it('without enabled contacts, and then does not hold the cooldown', async () => {
    const world = errorAlertWorld({ contacts: { email: [{ address: 'away@example.com', enabled: false }], sms: [] } });
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'no-recipients' });
    world.setAgent(agentRecord({ contacts }));
    expect(await processAlertNotification(job('o2'), world.deps)).toMatchObject({ outcome: 'sent', sent: 1 });
  });

  it('for an agent that is gone', async () => {
    const world = notifyWorld();
    world.addAlert(alertRecord());
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'no-recipients' });
  });
});

describe('processAlertNotification: cooldown', () => {
  it('sends at most once per cooldown per agent and type, and again once it has passed', async () => {
    const world = errorAlertWorld({ alertTypes: { error: { cooldownMinutes: 10 } } });
    await processAlertNotification(job('o1'), world.deps);
    world.advanceMinutes(9);
    expect(await processAlertNotification(job('o2'), world.deps)).toEqual({ outcome: 'suppressed-cooldown' });
    world.advanceMinutes(1);
    expect(await processAlertNotification(job('o3'), world.deps)).toMatchObject({ outcome: 'sent', sent: 1 });
    expect(world.takeSent()).toEqual(['email:oncall@example.com', 'email:oncall@example.com']);
  });

  it('lets a redelivered job through without sending its messages twice', async () => {
    const world = errorAlertWorld(bothChannels);
    await processAlertNotification(job('o1'), world.deps);
    world.advanceMinutes(1);
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 0, alreadySent: 2, rateLimited: 0, undeliverable: 0 });
    expect(world.sent).toHaveLength(2);
  });
});

describe('processAlertNotification: hourly limit per tenant', () => {
  const noCooldown = { alertTypes: { error: { channels: ['email' as const, 'sms' as const], cooldownMinutes: 0 } } };

  it('counts each message and holds back what exceeds the limit, until the next hour', async () => {
    const world = errorAlertWorld(noCooldown, { notificationsPerHour: 3 });
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 2, alreadySent: 0, rateLimited: 0, undeliverable: 0 });
    expect(await processAlertNotification(job('o2'), world.deps)).toEqual({ outcome: 'sent', sent: 1, alreadySent: 0, rateLimited: 1, undeliverable: 0 });
    expect(await processAlertNotification(job('o3'), world.deps)).toEqual({
      outcome: 'suppressed-limit',
      sent: 0,
      alreadySent: 0,
      rateLimited: 2,
      undeliverable: 0,
    });
    expect(world.takeSent()).toEqual(['email:oncall@example.com', 'sms:+14155550100', 'email:oncall@example.com']);
    world.advanceMinutes(60);
    expect(await processAlertNotification(job('o4'), world.deps)).toMatchObject({ outcome: 'sent', sent: 2 });
  });

  it('does not count a redelivered job again for what it already sent', async () => {
    const world = errorAlertWorld(noCooldown, { notificationsPerHour: 3 });
    await processAlertNotification(job('o1'), world.deps);
    await processAlertNotification(job('o1'), world.deps);
    expect(await processAlertNotification(job('o2'), world.deps)).toMatchObject({ sent: 1, rateLimited: 1, undeliverable: 0 });
  });
});

describe('processAlertNotification: failed sends', () => {
  const twoAddresses = {
    ...bothChannels,
    contacts: {
      ...contacts,
      email: [
        { address: 'oncall@example.com', enabled: true },
        { address: 'flaky@example.com', enabled: true },
      ],
    },
  };

  it('sends the rest, then throws without quoting the address, so the queue retries the job', async () => {
    const world = errorAlertWorld(twoAddresses);
    world.failNextSendTo.add('flaky@example.com');
    const attempt = processAlertNotification(job('o1'), world.deps);
    await expect(attempt).rejects.toBeInstanceOf(AggregateError);
    await expect(attempt).rejects.toThrow(/^1 of 3 alert notifications failed \(email: MessageRejected\)$/);
    expect(world.takeSent()).toEqual(['email:oncall@example.com', 'sms:+14155550100']);
  });

  it('a retry sends only what the failed attempt did not', async () => {
    const world = errorAlertWorld(twoAddresses);
    world.failNextSendTo.add('flaky@example.com');
    await expect(processAlertNotification(job('o1'), world.deps)).rejects.toThrow();
    world.takeSent();
    world.advanceMinutes(1);
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 1, alreadySent: 2, rateLimited: 0, undeliverable: 0 });
    expect(world.takeSent()).toEqual(['email:flaky@example.com']);
  });

  it('settles a recipient the provider refuses for good without failing the job, and never retries it', async () => {
    const world = errorAlertWorld(twoAddresses);
    world.refuse.add('flaky@example.com');
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 2, alreadySent: 0, rateLimited: 0, undeliverable: 1 });
    expect(world.takeSent()).toEqual(['email:oncall@example.com', 'sms:+14155550100']);
    world.advanceMinutes(1);
    expect(await processAlertNotification(job('o1'), world.deps)).toEqual({ outcome: 'sent', sent: 0, alreadySent: 3, rateLimited: 0, undeliverable: 0 });
    expect(world.takeSent()).toEqual([]);
  });
});
