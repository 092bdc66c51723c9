import * as z from 'zod';

/** A message for a person, as queued for the notify worker and as written to the local outbox. */
export const outboundMessageSchema = z.discriminatedUnion('channel', [
  z.object({
    id: z.string().min(1),
    channel: z.literal('email'),
    to: z.string().email(),
    subject: z.string().min(1).max(998),
    text: z.string().min(1),
  }),
  z.object({
    id: z.string().min(1),
    channel: z.literal('sms'),
    to: z.string().regex(/^\+[1-9]\d{6,14}$/),
    text: z.string().min(1).max(160),
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
  tenantId: z.string().min(1),
  alertId: z.string().min(1),
  /** The occurrence that triggered it; with alertId it identifies the job across retries. */
  occurrenceKey: z.string().min(1),
});
export type AlertNotificationJob = z.infer<typeof alertNotificationJobSchema>;

/** Everything the notify queue carries. */
export const notifyQueueMessageSchema = z.union([alertNotificationJobSchema, outboundMessageSchema]);
