import * as z from 'zod/mini';

const nonEmpty = z.string().check(z.minLength(1));

/** A message for a person, as queued for the notify worker and as written to the local outbox. */
export const outboundMessageSchema = z.discriminatedUnion('channel', [
  z.object({
    id: nonEmpty,
    channel: z.literal('email'),
    to: z.string().check(z.email()),
    subject: z.string().check(z.minLength(1), z.maxLength(998)),
    text: nonEmpty,
  }),
  z.object({
    id: nonEmpty,
    channel: z.literal('sms'),
    to: z.string().check(z.regex(/^\+[1-9]\d{6,14}$/)),
    text: z.string().check(z.minLength(1), z.maxLength(160)),
  }),
]);
export type OutboundMessage = z.infer<typeof outboundMessageSchema>;
export type EmailMessage = Extract<OutboundMessage, { channel: 'email' }>;
export type SmsMessage = Extract<OutboundMessage, { channel: 'sms' }>;

/**
 * A request to notify people of an alert occurrence, queued by whoever recorded it. The notify
 * worker applies the cooldown, the tenant's hourly limit and the plan, then sends to the contacts.
 */
export const alertNotificationJobSchema = z.object({
  kind: z.literal('alert-notification'),
  tenantId: nonEmpty,
  alertId: nonEmpty,
  /** The occurrence that triggered it; with alertId it identifies the job across retries. */
  occurrenceKey: nonEmpty,
});
export type AlertNotificationJob = z.infer<typeof alertNotificationJobSchema>;

/**
 * Sign-ins to an e-mail address were locked after repeated failures: the notify worker tells the
 * account's owner, if an account has that address (the sign-in answers do not say).
 */
export const signInLockoutJobSchema = z.object({
  kind: z.literal('sign-in-lockout'),
  email: z.string().check(z.minLength(1), z.maxLength(320)),
  failures: z.number().check(z.int(), z.positive()),
  lockedUntil: nonEmpty,
  /** With the address, identifies the lock across retries. */
  occurrenceKey: nonEmpty,
});
export type SignInLockoutJob = z.infer<typeof signInLockoutJobSchema>;

/** Everything the notify queue carries. */
export const notifyQueueMessageSchema = z.union([alertNotificationJobSchema, signInLockoutJobSchema, outboundMessageSchema]);
export type NotifyQueueMessage = z.infer<typeof notifyQueueMessageSchema>;
