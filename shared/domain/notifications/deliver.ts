import type { Clock } from '../../adapters/clock.ts';
import type { Mailer, SmsSender } from '../../adapters/mailer.ts';
import type { DeliveriesRepository } from '../../store/deliveries.ts';
import type { OutboundMessage } from './messages.ts';

export interface DeliveryDeps {
  mailer: Mailer;
  sms: SmsSender;
  deliveries: DeliveriesRepository;
  clock: Clock;
}

/**
 * The provider refused this message for good: the address or number is invalid, rejected or opted
 * out. Retrying cannot help, so the message is settled as undeliverable rather than dead-lettered,
 * which keeps the dead-letter queue for real faults (throttling, outages, configuration).
 */
export class UndeliverableError extends Error {}

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
