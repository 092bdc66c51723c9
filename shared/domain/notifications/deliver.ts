import type { Clock } from '../ports.ts';
import type { OutboundMessage } from './messages.ts';
import { type DeliveriesRepository, type Mailer, type SmsSender, UndeliverableError } from './ports.ts';

export interface DeliveryDeps {
  mailer: Mailer;
  sms: SmsSender;
  deliveries: DeliveriesRepository;
  clock: Clock;
}

export type DeliveryOutcome = 'sent' | 'duplicate' | 'undeliverable';

/**
 * Sends one message at least once and, in the usual redelivery case (the send succeeded but the queue
 * message was not deleted), exactly once: a message already settled is skipped.
 */
export async function deliver(message: OutboundMessage, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  if (await deps.deliveries.wasDelivered(message.id)) return 'duplicate';
  try {
    if (message.channel === 'email') await deps.mailer.sendEmail(message);
    else await deps.sms.sendSms(message);
  } catch (err) {
    if (!(err instanceof UndeliverableError)) throw err;
    await deps.deliveries.markDelivered(message.id, deps.clock.now(), 'undeliverable');
    return 'undeliverable';
  }
  await deps.deliveries.markDelivered(message.id, deps.clock.now(), 'sent');
  return 'sent';
}
