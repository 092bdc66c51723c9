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
 * Sends one message at least once and, in the usual redelivery case (the send succeeded but the queue
 * message was not deleted), exactly once: a message already marked delivered is skipped.
 */
export async function deliver(message: OutboundMessage, deps: DeliveryDeps): Promise<'sent' | 'duplicate'> {
  if (await deps.deliveries.wasDelivered(message.id)) return 'duplicate';
  if (message.channel === 'email') await deps.mailer.sendEmail(message);
  else await deps.sms.sendSms(message);
  await deps.deliveries.markDelivered(message.id, deps.clock.now());
  return 'sent';
}
