import type { TenantRecord } from '#shared/domain/accounts/ports.ts';
import type { AgentRecord } from '#shared/domain/agents/ports.ts';
import type { AlertConfigPatch } from '#shared/domain/alerts/config.ts';
import type { AlertNotificationDeps } from '#shared/domain/alerts/notify.ts';
import type { AlertRecord } from '#shared/domain/alerts/ports.ts';
import type { EmailMessage, SmsMessage } from '#shared/domain/notifications/messages.ts';
import { UndeliverableError } from '#shared/domain/notifications/ports.ts';
import type { PlanKey } from '#shared/domain/plans/plans.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { agentRecord as storedAgent } from '../../support/agents.ts';

export const T0 = Date.parse('2026-11-20T10:00:00Z');
export const TENANT = 'tnt_1';

export const alertRecord = (over: Partial<AlertRecord> = {}): AlertRecord => ({
  id: 'alt_1',
  tenantId: TENANT,
  agentId: 'agt_1',
  agentName: 'support-bot',
  type: 'error',
  category: 'threshold',
  severity: 'high',
  status: 'open',
  message: 'llm span "answer" failed: RateLimitError',
  value: null,
  threshold: null,
  reasoning: null,
  occurrenceCount: 3,
  firstSeenAt: '2026-11-20T09:58:00.000Z',
  lastSeenAt: '2026-11-20T10:00:00.000Z',
  traceIds: ['trace-latest', 'trace-older'],
  acknowledgedAt: null,
  resolvedAt: null,
  createdAt: '2026-11-20T09:58:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  occurrenceKeys: [],
  version: 3,
  ...over,
});

export const agentRecord = (alertConfig: AlertConfigPatch): AgentRecord =>
  storedAgent(TENANT, 'agt_1', '2026-11-01T00:00:00.000Z', { name: 'support-bot', source: 'explicit', alertConfig });

/**
 * Plain in-memory stand-ins for what processAlertNotification needs, with the repositories' semantics
 * (cooldown claims idempotent per job, atomic counters, delivered ids remembered).
 */
export function notifyWorld(options: { plan?: PlanKey; notificationsPerHour?: number } = {}) {
  let now = T0;
  const alerts = new Map<string, AlertRecord>();
  const agents = new Map<string, AgentRecord>();
  const tenants = new Map<string, TenantRecord>([
    [
      TENANT,
      {
        id: TENANT,
        ownerUserId: 'usr_1',
        subscription: { ...newTrialSubscription(new Date(T0)), plan: options.plan ?? 'trial' },
        createdAt: '2026-11-01T00:00:00.000Z',
      },
    ],
  ]);
  const cooldowns = new Map<string, { at: number; jobId: string }>();
  const counters = new Map<string, number>();
  const delivered = new Set<string>();
  const sent: Array<EmailMessage | SmsMessage> = [];
  /** Recipients whose next send fails, as SES/SNS errors do: quoting the address. */
  const failNextSendTo = new Set<string>();
  /** Recipients the provider refuses for good, as the SES/SNS adapters report it. */
  const refuse = new Set<string>();

  const send = async (m: EmailMessage | SmsMessage) => {
    if (failNextSendTo.delete(m.to)) throw Object.assign(new Error(`Address rejected: ${m.to}`), { name: 'MessageRejected' });
    if (refuse.has(m.to)) throw new UndeliverableError(`${m.channel} refused by the provider (MessageRejected)`);
    sent.push(m);
  };

  const deps: AlertNotificationDeps = {
    alerts: {
      get: async (tenantId, alertId) => alerts.get(`${tenantId}/${alertId}`),
      claimNotification: async (tenantId, agentId, type, jobId, at, cooldownMinutes) => {
        const key = `${tenantId}/${agentId}/${type}`;
        const last = cooldowns.get(key);
        if (last && last.jobId !== jobId && last.at > at.getTime() - cooldownMinutes * 60_000) return false;
        cooldowns.set(key, { at: at.getTime(), jobId });
        return true;
      },
    },
    agents: { get: async (tenantId, agentId) => agents.get(`${tenantId}/${agentId}`) },
    tenants: { get: async (tenantId) => tenants.get(tenantId) },
    rateLimits: {
      hit: async (credential, tier, windowStart) => {
        const key = `${credential}/${tier}/${windowStart}`;
        counters.set(key, (counters.get(key) ?? 0) + 1);
        return counters.get(key)!;
      },
    },
    deliveries: {
      wasDelivered: async (id) => delivered.has(id),
      markDelivered: async (id) => void delivered.add(id),
    },
    mailer: { sendEmail: send },
    sms: { sendSms: send },
    clock: { now: () => new Date(now) },
    settings: { publicAppUrl: 'https://app.example.com', notificationsPerHour: options.notificationsPerHour ?? 60 },
  };

  return {
    deps,
    sent,
    failNextSendTo,
    refuse,
    tenants,
    addAlert: (alert: AlertRecord) => void alerts.set(`${alert.tenantId}/${alert.id}`, alert),
    setAgent: (agent: AgentRecord) => void agents.set(`${agent.tenantId}/${agent.id}`, agent),
    advanceMinutes: (minutes: number) => void (now += minutes * 60_000),
    /** Everything sent so far, as `channel:to`, and forgets it. */
    takeSent: () => sent.splice(0).map((m) => `${m.channel}:${m.to}`),
  };
}
