import { systemClock } from '#shared/adapters/clock.ts';
import { configuredMessaging, type MessagingPorts } from '#shared/adapters/mailer.ts';
import { config } from '#shared/config.ts';
import { noticeSignInLockout } from '#shared/domain/accounts/sign-in-backoff.ts';
import { type NotificationSettings, processAlertNotification } from '#shared/domain/alerts/notify.ts';
import { deliver } from '#shared/domain/notifications/deliver.ts';
import { notifyQueueMessageSchema } from '#shared/domain/notifications/messages.ts';
import { logger } from '#shared/observability/logger.ts';
import { count, METRIC } from '#shared/observability/metrics.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { deliveriesRepository } from '#shared/store/deliveries.ts';
import { rateLimitsRepository } from '#shared/store/rate-limits.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { usersRepository } from '#shared/store/users.ts';
import { portsOf } from '#shared/wiring/ports.ts';
import { sqsBatchHandler } from '#shared/workers/sqs-batch.ts';

const configuredSettings: NotificationSettings = { publicAppUrl: config.publicAppUrl, notificationsPerHour: config.alerts.notificationsPerHour };

const storePorts = portsOf({
  alerts: alertsRepository,
  agents: agentsRepository,
  tenants: tenantsRepository,
  rateLimits: rateLimitsRepository,
  deliveries: deliveriesRepository,
  users: usersRepository,
});

let messaging: MessagingPorts | undefined;
const notifyPorts = () => ({
  ...storePorts(),
  ...(messaging ??= configuredMessaging(
    { outboxDir: config.outboxDir, mailTransport: config.mail.transport, smsTransport: config.sms.transport, mailFrom: config.mail.from },
    systemClock,
  )),
});

export type NotifyPorts = ReturnType<typeof notifyPorts>;

/**
 * Turns alert notification jobs into e-mails and SMS to the agent's contacts, and delivers queued
 * messages, through the mailer and SMS ports (SES/SNS on AWS, the outbox locally).
 */
export const notifyHandler = (getPorts: () => NotifyPorts = notifyPorts, settings: NotificationSettings = configuredSettings) =>
  sqsBatchHandler(async (record) => {
    const { store, mailer, sms, clock } = getPorts();
    const message = notifyQueueMessageSchema.parse(JSON.parse(record.body));
    if ('kind' in message && message.kind === 'sign-in-lockout') {
      const outcome = await noticeSignInLockout(message, {
        users: store.users,
        deliveries: store.deliveries,
        mailer,
        sms,
        clock,
        publicAppUrl: settings.publicAppUrl,
      });
      logger.info('sign-in lockout notice processed', { outcome });
      return;
    }
    if ('kind' in message) {
      const { alerts, agents, tenants, rateLimits, deliveries } = store;
      const result = await processAlertNotification(message, { alerts, agents, tenants, rateLimits, deliveries, mailer, sms, clock, settings });
      if ('sent' in result) count(METRIC.notificationsSent, result.sent);
      const held = 'rateLimited' in result && result.rateLimited + result.undeliverable > 0;
      logger[held ? 'warn' : 'info']('alert notification processed', { tenantId: message.tenantId, alertId: message.alertId, ...result });
      return;
    }
    const outcome = await deliver(message, { mailer, sms, deliveries: store.deliveries, clock });
    if (outcome === 'sent') count(METRIC.notificationsSent, 1);
    if (outcome === 'undeliverable')
      logger.warn('message refused for good by the provider; settled, not retried', { messageId: message.id, channel: message.channel });
  });

export const handler = notifyHandler();
