import { z } from 'zod';

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
