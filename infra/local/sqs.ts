import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CreateQueueCommand, GetQueueAttributesCommand, QueueAttributeName, SQSClient } from '@aws-sdk/client-sqs';
import type { QueueDef } from '#shared/catalog.ts';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS } from './local-account.ts';
import { type MessageAttributes, md5Of, type QueueAttributes, QueueStore, QueueStoreError, type ReceivedMessage } from './queue-store.ts';
import { close, listen, origin } from './servers.ts';

export interface LocalSqs {
  endpoint: string;
  client: SQSClient;
  /** Calls `listener` with the queue's name after messages were stored in it. */
  onSend(listener: (queueName: string) => void): void;
  stop(): Promise<void>;
}

export interface LocalQueue {
  def: QueueDef;
  name: string;
  url: string;
  arn: string;
}

/** Dead letters wait as long as SQS allows, for someone to look at them. */
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;
const MAX_RECEIVE = 10;
const MAX_BATCH_ENTRIES = 10;
const MAX_WAIT_SECONDS = 20;
/** A request larger than any SQS accepts is refused before it is read whole. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** The characters SQS allows in a message body. */
const INVALID_BODY_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * The SQS endpoint of the local runtime: the actions the service, its tests and the AWS SDK client use
 * (CreateQueue, GetQueueUrl, GetQueueAttributes, SendMessage, SendMessageBatch, ReceiveMessage with
 * long polling, DeleteMessage, DeleteMessageBatch) in the AWS JSON 1.0 protocol, over the durable
 * queue store in `dir` (in memory when absent), on a loopback ephemeral port. Message bodies and
 * attributes, visibility timeouts, delays, retention and redrive behave as on SQS standard queues.
 */
export async function startSqs(dir?: string): Promise<LocalSqs> {
  const store = await QueueStore.open(dir);
  const server = createServer((req, res) => void serve(store, endpointOf(req), req, res));
  const endpoint = origin('127.0.0.1', await listen(server, 0, '127.0.0.1'));
  const client = new SQSClient({ endpoint, region: LOCAL_ACCOUNT.region, credentials: LOCAL_CREDENTIALS });
  return {
    endpoint,
    client,
    onSend(listener) {
      store.sent.on('sent', listener);
    },
    async stop() {
      client.destroy();
      server.closeIdleConnections();
      await close(server);
      await store.close();
    },
  };
}

/** The queue URLs name the host the client reached, as SQS's do. */
const endpointOf = (req: IncomingMessage) => `http://${req.headers.host ?? '127.0.0.1'}`;
const queueUrlOf = (endpoint: string, name: string) => `${endpoint}/${LOCAL_ACCOUNT.accountId}/${name}`;
const queueArnOf = (name: string) => `arn:aws:sqs:${LOCAL_ACCOUNT.region}:${LOCAL_ACCOUNT.accountId}:${name}`;

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly queryCode = `AWS.SimpleQueueService.${code}`,
  ) {
    super(message);
  }
}

async function serve(store: QueueStore, endpoint: string, req: IncomingMessage, res: ServerResponse) {
  const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
    res.end(JSON.stringify(body));
  };
  try {
    const target = String(req.headers['x-amz-target'] ?? '');
    const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    const input = await readJson(req);
    const run = ACTIONS[action];
    if (!run) throw new SqsError('UnsupportedOperation', `The local queue does not support "${target}"`, 'AWS.SimpleQueueService.UnsupportedOperation');
    reply(200, await run(store, input, endpoint));
  } catch (err) {
    const known = err instanceof SqsError ? err : err instanceof QueueStoreError ? queueError(err) : undefined;
    if (!known) {
      reply(500, { __type: 'com.amazonaws.sqs#InternalError', message: err instanceof Error ? err.message : String(err) });
      return;
    }
    reply(400, { __type: `com.amazonaws.sqs#${known.code}`, message: known.message }, { 'x-amzn-query-error': `${known.queryCode};Sender` });
  }
}

function queueError(err: QueueStoreError): SqsError {
  if (err.code === 'QueueDoesNotExist') return new SqsError(err.code, err.message, 'AWS.SimpleQueueService.NonExistentQueue');
  if (err.code === 'ReceiptHandleIsInvalid') return new SqsError(err.code, err.message, 'ReceiptHandleIsInvalid');
  return new SqsError(err.code, err.message, 'InvalidParameterValue');
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new SqsError('BatchRequestTooLong', 'The request is too long', 'AWS.SimpleQueueService.BatchRequestTooLong');
    chunks.push(chunk);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new SqsError('InvalidParameterValue', 'The request body is not a JSON object', 'InvalidParameterValue');
}

type Action = (store: QueueStore, input: Record<string, unknown>, endpoint: string) => Promise<unknown>;

const ACTIONS: Record<string, Action> = {
  async CreateQueue(store, input, endpoint) {
    const name = String(input.QueueName ?? '');
    if (!/^[\w-]{1,80}$/.test(name)) throw invalid('QueueName must be 1 to 80 letters, digits, - or _');
    await store.createQueue(name, attributesFrom(input.Attributes));
    return { QueueUrl: queueUrlOf(endpoint, name) };
  },

  async GetQueueUrl(store, input, endpoint) {
    const name = String(input.QueueName ?? '');
    if (!store.has(name)) throw new SqsError('QueueDoesNotExist', `The queue ${name} does not exist`, 'AWS.SimpleQueueService.NonExistentQueue');
    return { QueueUrl: queueUrlOf(endpoint, name) };
  },

  async GetQueueAttributes(store, input) {
    const name = queueNameOf(input);
    const { attributes, createdAtMs, modifiedAtMs } = store.attributesOf(name);
    const counts = await store.counts(name);
    const all: Record<string, string> = {
      QueueArn: queueArnOf(name),
      VisibilityTimeout: String(attributes.VisibilityTimeout),
      DelaySeconds: String(attributes.DelaySeconds),
      MessageRetentionPeriod: String(attributes.MessageRetentionPeriod),
      MaximumMessageSize: String(attributes.MaximumMessageSize),
      ReceiveMessageWaitTimeSeconds: String(attributes.ReceiveMessageWaitTimeSeconds),
      CreatedTimestamp: String(Math.floor(createdAtMs / 1000)),
      LastModifiedTimestamp: String(Math.floor(modifiedAtMs / 1000)),
      ApproximateNumberOfMessages: String(counts.visible),
      ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
      ApproximateNumberOfMessagesDelayed: String(counts.delayed),
      ...(attributes.RedrivePolicy ? { RedrivePolicy: JSON.stringify(attributes.RedrivePolicy) } : {}),
    };
    const wanted = stringList(input.AttributeNames);
    return { Attributes: wanted.includes('All') ? all : Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k))) };
  },

  async SendMessage(store, input) {
    const name = queueNameOf(input);
    const [sent] = await store.send(name, [checkedMessage(store, name, input)]);
    return { MessageId: sent!.id, MD5OfMessageBody: sent!.md5, ...attributesDigest(input.MessageAttributes) };
  },

  async SendMessageBatch(store, input) {
    const name = queueNameOf(input);
    const entries = batchEntries(input.Entries);
    const total = entries.reduce((sum, e) => sum + Buffer.byteLength(String(e.MessageBody ?? '')), 0);
    if (total > store.attributesOf(name).attributes.MaximumMessageSize) {
      throw new SqsError(
        'BatchRequestTooLong',
        `The batch's messages add up to ${total} bytes, over the queue's maximum`,
        'AWS.SimpleQueueService.BatchRequestTooLong',
      );
    }
    const failed: { Id: string; SenderFault: true; Code: string; Message: string }[] = [];
    const valid: { entry: Record<string, unknown>; message: { body: string; delaySeconds?: number } }[] = [];
    for (const entry of entries) {
      try {
        valid.push({ entry, message: checkedMessage(store, name, entry) });
      } catch (err) {
        if (!(err instanceof SqsError)) throw err;
        failed.push({ Id: String(entry.Id), SenderFault: true, Code: err.code, Message: err.message });
      }
    }
    const sent = await store.send(
      name,
      valid.map((v) => v.message),
    );
    return {
      Successful: valid.map(({ entry }, i) => ({
        Id: String(entry.Id),
        MessageId: sent[i]!.id,
        MD5OfMessageBody: sent[i]!.md5,
        ...attributesDigest(entry.MessageAttributes),
      })),
      Failed: failed,
    };
  },

  async ReceiveMessage(store, input) {
    const name = queueNameOf(input);
    const max = optionalInteger(input.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, MAX_RECEIVE) ?? 1;
    const visibility = optionalInteger(input.VisibilityTimeout, 'VisibilityTimeout', 0, 43_200);
    const waitSeconds =
      optionalInteger(input.WaitTimeSeconds, 'WaitTimeSeconds', 0, MAX_WAIT_SECONDS) ?? store.attributesOf(name).attributes.ReceiveMessageWaitTimeSeconds;
    const messages = await receiveWaiting(store, name, max, visibility, Date.now() + waitSeconds * 1000);
    const systemNames = [...stringList(input.AttributeNames), ...stringList(input.MessageSystemAttributeNames)];
    const attributeNames = stringList(input.MessageAttributeNames);
    return { Messages: messages.map((m) => messageOut(m, systemNames, attributeNames)) };
  },

  async DeleteMessage(store, input) {
    await store.delete(queueNameOf(input), String(input.ReceiptHandle ?? ''));
    return {};
  },

  async DeleteMessageBatch(store, input) {
    const name = queueNameOf(input);
    const entries = batchEntries(input.Entries);
    const Successful: { Id: string }[] = [];
    const Failed: { Id: string; SenderFault: true; Code: string; Message: string }[] = [];
    for (const entry of entries) {
      try {
        await store.delete(name, String(entry.ReceiptHandle ?? ''));
        Successful.push({ Id: String(entry.Id) });
      } catch (err) {
        if (!(err instanceof QueueStoreError)) throw err;
        Failed.push({ Id: String(entry.Id), SenderFault: true, Code: err.code, Message: err.message });
      }
    }
    return { Successful, Failed };
  },
};

const invalid = (message: string) => new SqsError('InvalidParameterValue', message, 'InvalidParameterValue');

function queueNameOf(input: Record<string, unknown>): string {
  const url = String(input.QueueUrl ?? '');
  const name = url.slice(url.lastIndexOf('/') + 1);
  if (!name) throw invalid('QueueUrl is required');
  return name;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(`${field} must be an integer from ${min} to ${max}`);
  return value;
}

function batchEntries(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new SqsError('EmptyBatchRequest', 'The batch holds no entries', 'AWS.SimpleQueueService.EmptyBatchRequest');
  if (value.length > MAX_BATCH_ENTRIES)
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `A batch holds at most ${MAX_BATCH_ENTRIES} entries`,
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    );
  const ids = value.map((e) => String((e as { Id?: unknown }).Id ?? ''));
  if (new Set(ids).size !== ids.length)
    throw new SqsError('BatchEntryIdsNotDistinct', 'The batch entries must have distinct ids', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct');
  return value as Record<string, unknown>[];
}

function checkedMessage(
  store: QueueStore,
  queue: string,
  input: Record<string, unknown>,
): { body: string; delaySeconds?: number; attributes?: MessageAttributes } {
  const body = input.MessageBody;
  if (typeof body !== 'string' || body.length === 0) throw invalid('MessageBody must be a non-empty string');
  if (INVALID_BODY_CHARACTERS.test(body))
    throw new SqsError('InvalidMessageContents', 'The message body holds characters SQS does not allow', 'InvalidMessageContents');
  const attributes = messageAttributesFrom(input.MessageAttributes);
  const size = Buffer.byteLength(body) + attributesSize(attributes);
  const { MaximumMessageSize } = store.attributesOf(queue).attributes;
  if (size > MaximumMessageSize) throw invalid(`The message is ${size} bytes, over the queue's maximum of ${MaximumMessageSize}`);
  const delaySeconds = optionalInteger(input.DelaySeconds, 'DelaySeconds', 0, 900);
  return { body, ...(delaySeconds === undefined ? {} : { delaySeconds }), ...(attributes ? { attributes } : {}) };
}

function messageAttributesFrom(value: unknown): MessageAttributes | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('MessageAttributes must be an object');
  const entries = Object.entries(value as Record<string, Record<string, unknown>>);
  if (entries.length > 10) throw invalid('A message has at most 10 attributes');
  const attributes: MessageAttributes = {};
  for (const [name, attribute] of entries) {
    const DataType = String(attribute?.DataType ?? '');
    const base = DataType.split('.')[0];
    if (base === 'Binary' && typeof attribute.BinaryValue === 'string') attributes[name] = { DataType, BinaryValue: attribute.BinaryValue };
    else if ((base === 'String' || base === 'Number') && typeof attribute.StringValue === 'string')
      attributes[name] = { DataType, StringValue: attribute.StringValue };
    else throw invalid(`Message attribute ${name} must be a String, Number or Binary with its value`);
  }
  return attributes;
}

const attributeBytes = (a: MessageAttributes[string]) =>
  a.BinaryValue !== undefined ? Buffer.from(a.BinaryValue, 'base64') : Buffer.from(a.StringValue ?? '', 'utf8');

function attributesSize(attributes: MessageAttributes | undefined): number {
  return Object.entries(attributes ?? {}).reduce(
    (sum, [name, a]) => sum + Buffer.byteLength(name) + Buffer.byteLength(a.DataType) + attributeBytes(a).length,
    0,
  );
}

/** SQS's MD5 of message attributes: each, by name, as length-prefixed name, type, transport byte and value. */
function attributesDigest(value: unknown): { MD5OfMessageAttributes?: string } {
  const attributes = messageAttributesFrom(value);
  if (!attributes || Object.keys(attributes).length === 0) return {};
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return [length, bytes];
  };
  const parts = Object.keys(attributes)
    .sort()
    .flatMap((name) => {
      const a = attributes[name]!;
      return [
        ...lengthPrefixed(Buffer.from(name, 'utf8')),
        ...lengthPrefixed(Buffer.from(a.DataType, 'utf8')),
        Buffer.from([a.BinaryValue !== undefined ? 2 : 1]),
        ...lengthPrefixed(attributeBytes(a)),
      ];
    });
  return { MD5OfMessageAttributes: md5Of(Buffer.concat(parts)) };
}

/** Queue attributes as CreateQueue takes them (strings), over the defaults. */
function attributesFrom(value: unknown): Partial<QueueAttributes> {
  const given = (value ?? {}) as Record<string, unknown>;
  const attributes: Partial<QueueAttributes> = {};
  const numeric: [keyof Omit<QueueAttributes, 'RedrivePolicy'>, number, number][] = [
    ['VisibilityTimeout', 0, 43_200],
    ['DelaySeconds', 0, 900],
    ['MessageRetentionPeriod', 60, 1_209_600],
    ['MaximumMessageSize', 1024, 1_048_576],
    ['ReceiveMessageWaitTimeSeconds', 0, MAX_WAIT_SECONDS],
  ];
  for (const [name, min, max] of numeric) {
    if (given[name] === undefined) continue;
    const n = Number(given[name]);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new SqsError('InvalidAttributeValue', `${name} must be an integer from ${min} to ${max}`, 'InvalidAttributeValue');
    attributes[name] = n;
  }
  if (given.RedrivePolicy !== undefined) {
    try {
      const policy = JSON.parse(String(given.RedrivePolicy)) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
      const maxReceiveCount = Number(policy.maxReceiveCount);
      if (typeof policy.deadLetterTargetArn !== 'string' || !Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000)
        throw new Error();
      attributes.RedrivePolicy = { deadLetterTargetArn: policy.deadLetterTargetArn, maxReceiveCount };
    } catch {
      throw new SqsError('InvalidAttributeValue', 'RedrivePolicy must be {"deadLetterTargetArn","maxReceiveCount" 1–1000}', 'InvalidAttributeValue');
    }
  }
  return attributes;
}

/** Long polling: waits for a send to the queue, or for a message to come due, until the deadline. */
async function receiveWaiting(store: QueueStore, name: string, max: number, visibility: number | undefined, deadlineMs: number): Promise<ReceivedMessage[]> {
  for (;;) {
    // Listening before looking, so that a send while the queue is read is not missed.
    let sentMeanwhile = false;
    let wake = () => {};
    const onSent = (queue: string) => {
      if (queue !== name) return;
      sentMeanwhile = true;
      wake();
    };
    store.sent.on('sent', onSent);
    try {
      const messages = await store.receive(name, max, visibility);
      const now = Date.now();
      if (messages.length > 0 || now >= deadlineMs) return messages;
      if (sentMeanwhile) continue;
      const nextDue = await store.nextDueAtMs(name);
      const until = nextDue !== undefined && nextDue > now ? Math.min(deadlineMs, nextDue) : deadlineMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, until - Date.now()));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        if (sentMeanwhile) wake();
      });
    } finally {
      store.sent.off('sent', onSent);
    }
  }
}

function messageOut(m: ReceivedMessage, systemNames: string[], attributeNames: string[]) {
  const system: Record<string, string> = {
    ApproximateReceiveCount: String(m.receiveCount),
    ApproximateFirstReceiveTimestamp: String(m.firstReceivedAtMs),
    SentTimestamp: String(m.sentAtMs),
    SenderId: LOCAL_ACCOUNT.accountId,
  };
  const allSystem = systemNames.includes('All');
  const Attributes = Object.fromEntries(Object.entries(system).filter(([k]) => allSystem || systemNames.includes(k)));
  const allAttributes = attributeNames.includes('All') || attributeNames.includes('.*');
  const MessageAttributes = Object.fromEntries(Object.entries(m.attributes ?? {}).filter(([k]) => allAttributes || attributeNames.includes(k)));
  const hasAttributes = Object.keys(MessageAttributes).length > 0;
  return {
    MessageId: m.id,
    ReceiptHandle: m.receiptHandle,
    MD5OfBody: m.md5,
    Body: m.body,
    ...(Object.keys(Attributes).length > 0 ? { Attributes } : {}),
    ...(hasAttributes ? { MessageAttributes, ...attributesDigest(MessageAttributes) } : {}),
  };
}

/**
 * The queue and its dead-letter queue, as the stateful stack makes them on AWS; the store applies the
 * redrive policy: a message received maxReceiveCount times moves to the DLQ when it comes due again.
 */
export async function createQueue(client: SQSClient, namePrefix: string, def: QueueDef): Promise<LocalQueue> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${namePrefix}-${def.id}-dlq`,
      Attributes: { MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS) },
    }),
  );
  const dlqArn = await queueArn(client, dlq.QueueUrl!);
  const name = `${namePrefix}-${def.id}`;
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(def.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
      },
    }),
  );
  return { def, name, url: queue.QueueUrl!, arn: await queueArn(client, queue.QueueUrl!) };
}

async function queueArn(client: SQSClient, url: string): Promise<string> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [QueueAttributeName.QueueArn] }));
  return Attributes!.QueueArn!;
}

/** How many messages the queue holds: waiting, in flight (received, not yet deleted), and delayed (not yet due). */
export async function queueCounts(client: SQSClient, url: string): Promise<{ waiting: number; inFlight: number; delayed: number }> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        QueueAttributeName.ApproximateNumberOfMessages,
        QueueAttributeName.ApproximateNumberOfMessagesNotVisible,
        QueueAttributeName.ApproximateNumberOfMessagesDelayed,
      ],
    }),
  );
  return {
    waiting: Number(Attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}
