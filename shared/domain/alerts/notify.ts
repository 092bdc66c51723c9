import { createHash } from 'node:crypto';
import type { TenantsRepository } from '../accounts/ports.ts';
import type { AgentsRepository } from '../agents/ports.ts';
import { type DeliveryOutcome, deliver } from '../notifications/deliver.ts';
import type { AlertNotificationJob, OutboundMessage } from '../notifications/messages.ts';
import type { DeliveriesRepository, Mailer, SmsSender } from '../notifications/ports.ts';
import { PLANS } from '../plans/plans.ts';
import type { Clock, RateLimitsRepository } from '../ports.ts';
import { type AlertConfig, type AlertType, type Channel, effectiveAlertConfig, optionsOf } from './config.ts';
import type { AlertRecord, AlertsRepository } from './ports.ts';

export interface NotificationSettings {
  /** Base of the dashboard links in e-mails. */
  publicAppUrl: string;
  /** Messages (e-mails + SMS) a tenant may be sent per clock hour. */
  notificationsPerHour: number;
}

export interface AlertNotificationDeps {
  alerts: Pick<AlertsRepository, 'get' | 'claimNotification'>;
  agents: Pick<AgentsRepository, 'get'>;
  tenants: Pick<TenantsRepository, 'get'>;
  rateLimits: RateLimitsRepository;
  deliveries: DeliveriesRepository;
  mailer: Mailer;
  sms: SmsSender;
  clock: Clock;
  settings: NotificationSettings;
}

export interface SendCounts {
  /** Handed to SES/SNS (or the outbox) by this attempt. */
  sent: number;
  /** Delivered by an earlier attempt of the same job, so skipped. */
  alreadySent: number;
  /** Held back by the tenant's hourly limit. */
  rateLimited: number;
  /** Refused for good by SES/SNS (invalid, rejected or opted-out recipient): settled, not retried. */
  undeliverable: number;
}

export type AlertNotificationResult =
  | ({ outcome: 'sent' | 'suppressed-limit' } & SendCounts)
  | { outcome: 'alert-gone' | 'type-disabled' | 'not-entitled' | 'no-recipients' | 'suppressed-cooldown' };

export interface Recipient {
  channel: Channel;
  to: string;
}

const HOUR_SECONDS = 3600;
const LIMITER_TIER = 'alert-notifications';
const SMS_MAX_LENGTH = 160;
const SMS_AGENT_NAME_MAX = 40;
const SUBJECT_AGENT_NAME_MAX = 100;

/**
 * Notifies the agent's contacts of one alert occurrence, if the type is enabled, the plan includes
 * alerts, the type's cooldown has passed and the tenant's hourly limit allows. Safe to retry: each
 * message has an id fixed by the job and the recipient, so a retry sends only what a previous attempt
 * did not. Throws when a send fails, so the queue retries the job and finally dead-letters it.
 */
export async function processAlertNotification(job: AlertNotificationJob, deps: AlertNotificationDeps): Promise<AlertNotificationResult> {
  const alert = await deps.alerts.get(job.tenantId, job.alertId);
  if (!alert) return { outcome: 'alert-gone' };
  const [agent, tenant] = await Promise.all([deps.agents.get(job.tenantId, alert.agentId), deps.tenants.get(job.tenantId)]);
  // A deleted agent has no configuration left, hence no contacts.
  const config = effectiveAlertConfig(agent?.alertConfig);
  const options = optionsOf(config, alert.type as AlertType);
  if (!options.enabled) return { outcome: 'type-disabled' };
  if (!tenant || !PLANS[tenant.subscription.plan].features.alerts) return { outcome: 'not-entitled' };
  const recipients = recipientsOf(config, options.channels);
  if (recipients.length === 0) return { outcome: 'no-recipients' };

  const now = deps.clock.now();
  const jobId = `${job.alertId}:${job.occurrenceKey}`;
  if (!(await deps.alerts.claimNotification(job.tenantId, alert.agentId, alert.type, jobId, now, options.cooldownMinutes))) {
    return { outcome: 'suppressed-cooldown' };
  }

  // Named as the agent is named now, as the API shows alerts (the alert keeps the name it was raised under).
  const named = { ...alert, agentName: agent?.name ?? alert.agentName };
  const email = alertEmail(named, deps.settings.publicAppUrl, options.cooldownMinutes);
  const sms = alertSms(named);
  const messages = recipients.map((r): OutboundMessage => {
    const id = messageId(jobId, r);
    return r.channel === 'email' ? { id, channel: 'email', to: r.to, ...email } : { id, channel: 'sms', to: r.to, text: sms };
  });
  const pending = await notYetDelivered(messages, deps.deliveries);
  const allowed = await withinHourlyLimit(pending, job.tenantId, now, deps);
  const outcomes = await deliverAll(allowed, deps);
  const sent = outcomes.filter((o) => o === 'sent').length;
  const undeliverable = outcomes.filter((o) => o === 'undeliverable').length;
  const rateLimited = pending.length - allowed.length;
  return {
    outcome: allowed.length === 0 && rateLimited > 0 ? 'suppressed-limit' : 'sent',
    sent,
    alreadySent: messages.length - sent - undeliverable - rateLimited,
    rateLimited,
    undeliverable,
  };
}

/** The enabled contacts of each channel, once each (e-mail addresses compared case-insensitively). */
export function recipientsOf(config: AlertConfig, channels: readonly Channel[]): Recipient[] {
  const addresses = {
    email: config.contacts.email.filter((c) => c.enabled).map((c) => c.address),
    sms: config.contacts.sms.filter((c) => c.enabled).map((c) => c.phoneNumber),
  };
  const unique = new Map<string, Recipient>();
  for (const channel of channels) {
    for (const to of addresses[channel]) {
      const key = `${channel}:${to.toLowerCase()}`;
      if (!unique.has(key)) unique.set(key, { channel, to });
    }
  }
  return [...unique.values()];
}

/**
 * Fixed by the job and the recipient, so a retried job maps to the same deliveries; hashed to keep
 * addresses out of table keys and outbox file names.
 */
export const messageId = (jobId: string, r: Recipient): string =>
  `alertmsg_${createHash('sha256').update(`${jobId}\n${r.channel}\n${r.to.toLowerCase()}`).digest('base64url').slice(0, 32)}`;

async function notYetDelivered(messages: OutboundMessage[], deliveries: DeliveriesRepository): Promise<OutboundMessage[]> {
  const delivered = await Promise.all(messages.map((m) => deliveries.wasDelivered(m.id)));
  return messages.filter((_, i) => !delivered[i]);
}

/**
 * Counts each message against the tenant's hourly budget and keeps those within it. Messages already
 * delivered were filtered out before, so a retried job is not counted twice for them; a message whose
 * send failed is counted again on each retry (at most the queue's maxReceiveCount times).
 */
async function withinHourlyLimit(messages: OutboundMessage[], tenantId: string, now: Date, deps: AlertNotificationDeps): Promise<OutboundMessage[]> {
  const hourStart = Math.floor(now.getTime() / 1000 / HOUR_SECONDS) * HOUR_SECONDS;
  const allowed: OutboundMessage[] = [];
  for (const message of messages) {
    const used = await deps.rateLimits.hit(`tenant:${tenantId}`, LIMITER_TIER, hourStart, HOUR_SECONDS);
    if (used > deps.settings.notificationsPerHour) break;
    allowed.push(message);
  }
  return allowed;
}

/** Sends every message even if one fails, then throws if any failed. */
async function deliverAll(messages: OutboundMessage[], deps: AlertNotificationDeps): Promise<DeliveryOutcome[]> {
  const results = await Promise.allSettled(messages.map((m) => deliver(m, deps)));
  const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [{ channel: messages[i]!.channel, error: r.reason as unknown }] : []));
  if (failed.length > 0) {
    // Provider errors can quote the recipient's address; the summary names only channel and error type.
    const summary = failed.map((f) => `${f.channel}: ${f.error instanceof Error ? f.error.name : 'unknown error'}`).join(', ');
    throw new AggregateError(
      failed.map((f) => f.error),
      `${failed.length} of ${messages.length} alert notifications failed (${summary})`,
    );
  }
  return results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
}

/** `highInputTokens` → `high input tokens`. */
export const typeLabel = (type: string): string => type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Shortens to `max` UTF-16 units without splitting a character, marking the cut with "...". */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length + 3 > max) break;
    out += char;
  }
  // ASCII dots: "…" is not in the GSM alphabet and would turn the SMS into 70-character UCS-2 segments.
  return `${out.trimEnd()}...`;
}

const grouped = (n: number, minimumFractionDigits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits, maximumFractionDigits: Math.max(minimumFractionDigits, 6) });

/** A measured value in the unit of its alert type: ms, tokens, dollars, or the judge's confidence (0–1). */
export function formatMeasure(type: string, value: number): string {
  switch (type) {
    case 'highDuration':
    case 'timeout':
      return `${grouped(Math.round(value))} ms`;
    case 'highInputTokens':
    case 'highOutputTokens':
      return `${grouped(Math.round(value))} tokens`;
    case 'highCost':
      return `$${grouped(value, 2)}`;
    case 'hallucination':
    case 'nsfw':
    case 'stuck':
    case 'quality':
      return value.toFixed(2);
    default:
      return grouped(value);
  }
}

const formatTime = (iso: string) => iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
const field = (label: string, value: string) => `${`${label}:`.padEnd(13)}${value}`;
const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

function measureField(alert: AlertRecord): string[] {
  if (alert.value === null) return [];
  const threshold = alert.threshold === null ? '' : ` (threshold ${formatMeasure(alert.type, alert.threshold)})`;
  return [field(alert.category === 'llm' ? 'Confidence' : 'Value', formatMeasure(alert.type, alert.value) + threshold)];
}

export function alertEmail(alert: AlertRecord, publicAppUrl: string, cooldownMinutes: number): { subject: string; text: string } {
  const severity = alert.severity.toUpperCase();
  const agent = oneLine(alert.agentName);
  const type = typeLabel(alert.type);
  const latestTrace = alert.traceIds[0];
  const lines = [
    `${severity}: ${type} alert on agent "${agent}"`,
    '',
    alert.message,
    '',
    ...measureField(alert),
    field('Occurrences', String(alert.occurrenceCount)),
    field('First seen', formatTime(alert.firstSeenAt)),
    field('Last seen', formatTime(alert.lastSeenAt)),
    field('Status', alert.status),
    ...(alert.reasoning ? ['', "Judge's reasoning:", alert.reasoning] : []),
    '',
    ...(latestTrace ? [`Latest trace: ${publicAppUrl}/traces/${latestTrace}`, `  API: GET /api/spans/traces/${latestTrace}`] : []),
    `Alert: ${publicAppUrl}/alerts/${alert.id}`,
    `  API: GET /api/spans/alerts/${alert.id}`,
    ...(cooldownMinutes > 0
      ? ['', `Further ${type} occurrences on this agent within ${minutes(cooldownMinutes)} are counted on the alert without another notification.`]
      : []),
  ];
  return { subject: `[${severity}] ${truncate(agent, SUBJECT_AGENT_NAME_MAX)}: ${type} alert`, text: lines.join('\n') };
}

/** `[HIGH] support-bot error: <message> (x3)`, at most 160 characters: the message gives way first. */
export function alertSms(alert: AlertRecord): string {
  const prefix = `[${alert.severity.toUpperCase()}] ${truncate(oneLine(alert.agentName), SMS_AGENT_NAME_MAX)} ${typeLabel(alert.type)}: `;
  const suffix = alert.occurrenceCount > 1 ? ` (x${alert.occurrenceCount})` : '';
  return prefix + truncate(oneLine(alert.message), SMS_MAX_LENGTH - prefix.length - suffix.length) + suffix;
}
