import { defaultPorts, type Ports } from '../../shared/adapters/ports.ts';
import { deliver } from '../../shared/domain/notifications/deliver.ts';
import { outboundMessageSchema } from '../../shared/domain/notifications/messages.ts';
import { sqsBatchHandler } from '../../shared/workers/sqs-batch.ts';

/** Delivers queued e-mails and SMS through the mailer and SMS ports (SES/SNS on AWS, the outbox locally). */
export const notifyHandler = (getPorts: () => Ports = defaultPorts) =>
  sqsBatchHandler(async (record) => {
    const ports = getPorts();
    const message = outboundMessageSchema.parse(JSON.parse(record.body));
    await deliver(message, { mailer: ports.mailer, sms: ports.sms, deliveries: ports.store.deliveries, clock: ports.clock });
  });

export const handler = notifyHandler();
