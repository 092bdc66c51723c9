import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  QueueAttributeName,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { QueueDef } from '../../shared/catalog.ts';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS } from './local-account.ts';
import { close, origin } from './servers.ts';

export interface LocalSqs {
  endpoint: string;
  client: SQSClient;
  /** Calls `listener` after every successful SendMessage or SendMessageBatch. */
  onSend(listener: () => void): void;
  stop(): Promise<void>;
}

export interface LocalQueue {
  def: QueueDef;
  url: string;
  arn: string;
}

/** Dead letters wait as long as SQS allows, for someone to look at them. */
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;

/** local-aws-sqs (in memory) on a loopback ephemeral port. */
export async function startSqs(): Promise<LocalSqs> {
  const server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    region: LOCAL_ACCOUNT.region,
    accountId: LOCAL_ACCOUNT.accountId,
  });
  const { port } = server.address() as { port: number };
  const endpoint = origin('127.0.0.1', port);
  const client = new SQSClient({ endpoint, region: LOCAL_ACCOUNT.region, credentials: LOCAL_CREDENTIALS });
  return {
    endpoint,
    client,
    onSend(listener) {
      // Beside the server's own request handler; the SDK speaks the JSON protocol, which names the action in a header.
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const action = req.headers['x-amz-target'];
        if (typeof action !== 'string' || !action.startsWith('AmazonSQS.SendMessage')) return;
        res.on('finish', () => res.statusCode === 200 && listener());
      });
    },
    async stop() {
      client.destroy();
      await close(server);
    },
  };
}

/**
 * The queue and its dead-letter queue, as the stateful stack makes them on AWS. local-aws-sqs applies
 * the RedrivePolicy itself: once a message has been received maxReceiveCount times and its visibility
 * timeout runs out again, the server moves it to the DLQ.
 */
export async function createQueue(client: SQSClient, namePrefix: string, def: QueueDef): Promise<LocalQueue> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${namePrefix}-${def.id}-dlq`,
      Attributes: { MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS) },
    }),
  );
  const dlqArn = await queueArn(client, dlq.QueueUrl!);
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: `${namePrefix}-${def.id}`,
      Attributes: {
        VisibilityTimeout: String(def.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
      },
    }),
  );
  return { def, url: queue.QueueUrl!, arn: await queueArn(client, queue.QueueUrl!) };
}

async function queueArn(client: SQSClient, url: string): Promise<string> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [QueueAttributeName.QueueArn] }),
  );
  return Attributes!.QueueArn!;
}

/** No message waiting, in flight (received, not yet deleted) or delayed. */
export async function isQueueEmpty(client: SQSClient, url: string): Promise<boolean> {
  const counts = [
    QueueAttributeName.ApproximateNumberOfMessages,
    QueueAttributeName.ApproximateNumberOfMessagesNotVisible,
    QueueAttributeName.ApproximateNumberOfMessagesDelayed,
  ];
  const { Attributes = {} } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: counts }));
  return counts.every((name) => Number(Attributes[name] ?? 0) === 0);
}
