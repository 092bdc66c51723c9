import type { EmailMessage, SmsMessage } from './messages.ts';

export interface Mailer {
  sendEmail(message: EmailMessage): Promise<void>;
}
export interface SmsSender {
  sendSms(message: SmsMessage): Promise<void>;
}

/**
 * The provider refused this message for good: the address or number is invalid, rejected or opted
 * out. Retrying cannot help, so the message is settled as undeliverable rather than dead-lettered,
 * which keeps the dead-letter queue for real faults (throttling, outages, configuration).
 */
export class UndeliverableError extends Error {}

/** Which outbound messages were already settled with the provider, so a redelivered queue message is not sent twice. */
export interface DeliveriesRepository {
  wasDelivered(messageId: string): Promise<boolean>;
  /** Settles a message: handed over (`sent`), or refused for good by the provider (`undeliverable`). */
  markDelivered(messageId: string, now: Date, outcome: 'sent' | 'undeliverable'): Promise<void>;
}
