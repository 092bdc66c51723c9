import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import type { AbstractLevel } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';

/**
 * The local queues' messages, kept in LevelDB under the data directory (in memory without one), with
 * the semantics of SQS standard queues that the service relies on: a message sent is stored before the
 * send is answered, a received message stays invisible for its visibility timeout and comes back unless
 * deleted with its latest receipt handle, delays, retention, and a redrive policy that moves a message
 * received `maxReceiveCount` times to the dead-letter queue instead of handing it out again.
 *
 * Every change is one LevelDB batch (atomic), written before the operation resolves. LevelDB hands
 * each write to the operating system before it returns (`sync: false` only skips the fsync), so a
 * process killed at any moment keeps every message whose send was answered; a power cut may lose the
 * last writes, as it may dynalite's. The receive count of a message is updated with its delivery, in
 * the same batch, so a crash never lets a message dodge its dead-letter queue.
 *
 * Written here because no npm package keeps SQS queues on disk: the one we used before (local-aws-sqs)
 * holds them in memory, and `kill -9` right after 2,000 spans were answered 202 kept 1,200 to 1,300 of
 * them; ElasticMQ and LocalStack need a JVM or Docker, which `npm install && npm start` cannot assume.
 * LevelDB itself (classic-level) is the library doing the storing.
 */

export interface QueueAttributes {
  VisibilityTimeout: number;
  DelaySeconds: number;
  MessageRetentionPeriod: number;
  MaximumMessageSize: number;
  ReceiveMessageWaitTimeSeconds: number;
  RedrivePolicy?: { deadLetterTargetArn: string; maxReceiveCount: number };
}

export const DEFAULT_ATTRIBUTES: QueueAttributes = {
  VisibilityTimeout: 30,
  DelaySeconds: 0,
  MessageRetentionPeriod: 4 * 24 * 3600,
  MaximumMessageSize: 256 * 1024,
  ReceiveMessageWaitTimeSeconds: 0,
};

interface QueueRecord {
  name: string;
  attributes: QueueAttributes;
  createdAtMs: number;
  modifiedAtMs: number;
}

/** Message attributes as SQS takes them: a data type and a string or base64 binary value. */
export type MessageAttributes = Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;

interface MessageRecord {
  id: string;
  body: string;
  md5: string;
  attributes?: MessageAttributes;
  sentAtMs: number;
  visibleAtMs: number;
  receiveCount: number;
  firstReceivedAtMs?: number;
  /** The token of the latest receipt handle; only that handle deletes the message. */
  receipt?: string;
}

export interface ReceivedMessage {
  id: string;
  body: string;
  md5: string;
  attributes?: MessageAttributes;
  receiptHandle: string;
  sentAtMs: number;
  receiveCount: number;
  firstReceivedAtMs: number;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

export class QueueStoreError extends Error {
  constructor(
    readonly code: 'QueueDoesNotExist' | 'ReceiptHandleIsInvalid' | 'InvalidParameterValue',
    message: string,
  ) {
    super(message);
  }
}

/** What both LevelDB on disk and its in-memory twin offer. */
type Db = AbstractLevel<string | Buffer | Uint8Array, string, string>;
type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

const MAX_DELAY_SECONDS = 900;
/** LevelDB's block cache and write buffer; the queues hold a few thousand messages at most at a time. */
const CACHE_BYTES = 2 * 1024 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;
/**
 * LevelDB's least: at most 64 table files open. LevelDB maps each open table file into memory whole,
 * so this bounds what the queues map whatever their backlog. The queues read their messages in key
 * order, mostly from the newest files; unlike dynalite's store (docs/local-runtime.md → Memory), no
 * slowdown was measured, nor a saving: a backlog of a million spans was not run with and without it.
 */
const MAX_OPEN_FILES = 74;

const queueKey = (name: string) => `queue:${name}`;
const messageKey = (queue: string, id: string) => `msg:${queue}:${id}`;
/** Messages by the time they become receivable; `n` new (never received), `r` received before. */
const dueKey = (queue: string, m: MessageRecord) => `due:${queue}:${String(m.visibleAtMs).padStart(15, '0')}:${m.receiveCount > 0 ? 'r' : 'n'}:${m.id}`;
const duePrefix = (queue: string) => `due:${queue}:`;
const dueBefore = (queue: string, ms: number) => `${duePrefix(queue)}${String(ms).padStart(15, '0')}`;

export const md5Of = (data: string | Buffer) => createHash('md5').update(data).digest('hex');
const queueNameOfArn = (arn: string) => arn.slice(arn.lastIndexOf(':') + 1);

export class QueueStore {
  /** Emits the queue's name after messages were stored in it. */
  readonly sent = new EventEmitter();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly queues = new Map<string, QueueRecord>();

  private constructor(private readonly db: Db) {
    this.sent.setMaxListeners(0);
  }

  /**
   * Opens the store in `dir` (in memory when absent). This process is the only consumer of the local
   * queues (the data directory is locked), so messages still in flight were handed to a process that
   * is gone: they are released at once rather than after their visibility timeout.
   */
  static async open(dir?: string): Promise<QueueStore> {
    let db: Db;
    if (dir) {
      await mkdir(dir, { recursive: true });
      db = new ClassicLevel<string, string>(dir, { cacheSize: CACHE_BYTES, writeBufferSize: WRITE_BUFFER_BYTES, maxOpenFiles: MAX_OPEN_FILES });
    } else {
      db = new MemoryLevel<string, string>();
    }
    await db.open();
    const store = new QueueStore(db);
    for await (const [, value] of db.iterator({ gte: 'queue:', lt: 'queue;' })) {
      const queue = JSON.parse(value) as QueueRecord;
      store.queues.set(queue.name, queue);
    }
    for (const name of store.queues.keys()) await store.releaseInFlight(name);
    return store;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Creates the queue, or applies `attributes` to the existing one (as a redeployment would). */
  async createQueue(name: string, attributes: Partial<QueueAttributes>): Promise<void> {
    const now = Date.now();
    const existing = this.queues.get(name);
    const queue: QueueRecord = {
      name,
      attributes: { ...DEFAULT_ATTRIBUTES, ...existing?.attributes, ...attributes },
      createdAtMs: existing?.createdAtMs ?? now,
      modifiedAtMs: now,
    };
    await this.db.put(queueKey(name), JSON.stringify(queue));
    this.queues.set(name, queue);
  }

  has(name: string): boolean {
    return this.queues.has(name);
  }

  attributesOf(name: string): QueueRecord {
    return this.queueOf(name);
  }

  /** Stores the bodies as one atomic write; resolves with the message ids once they are stored. */
  async send(
    name: string,
    messages: readonly { body: string; delaySeconds?: number; attributes?: MessageAttributes }[],
  ): Promise<{ id: string; md5: string }[]> {
    const { attributes } = this.queueOf(name);
    const now = Date.now();
    const records = messages.map(({ body, delaySeconds = attributes.DelaySeconds, attributes: messageAttributes }): MessageRecord => {
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
        throw new QueueStoreError('InvalidParameterValue', `DelaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}`);
      }
      return {
        id: randomUUID(),
        body,
        md5: md5Of(body),
        ...(messageAttributes ? { attributes: messageAttributes } : {}),
        sentAtMs: now,
        visibleAtMs: now + delaySeconds * 1000,
        receiveCount: 0,
      };
    });
    await this.db.batch(records.flatMap((m) => this.putOps(name, m)));
    if (records.length > 0) this.sent.emit('sent', name);
    return records.map(({ id, md5 }) => ({ id, md5 }));
  }

  /**
   * Hands out up to `max` receivable messages, each invisible for `visibilityTimeoutSeconds` from now
   * (the queue's own by default). A message received `maxReceiveCount` times before moves to the
   * dead-letter queue instead; one older than the retention period is dropped.
   */
  receive(name: string, max: number, visibilityTimeoutSeconds?: number): Promise<ReceivedMessage[]> {
    return this.locked(name, async () => {
      const { attributes } = this.queueOf(name);
      const timeoutMs = (visibilityTimeoutSeconds ?? attributes.VisibilityTimeout) * 1000;
      const now = Date.now();
      const ops: Op[] = [];
      const received: ReceivedMessage[] = [];
      const moved = new Set<string>();
      for await (const key of this.db.keys({ gte: duePrefix(name), lt: dueBefore(name, now + 1) })) {
        if (received.length === max) break;
        const stored = await this.db.get(messageKey(name, key.slice(key.lastIndexOf(':') + 1)));
        if (stored === undefined) {
          ops.push({ type: 'del', key });
          continue;
        }
        const message = JSON.parse(stored) as MessageRecord;
        const redrive = attributes.RedrivePolicy;
        if (message.sentAtMs + attributes.MessageRetentionPeriod * 1000 <= now) {
          ops.push(...this.deleteOps(name, message));
        } else if (redrive && message.receiveCount >= redrive.maxReceiveCount && this.queues.has(queueNameOfArn(redrive.deadLetterTargetArn))) {
          const deadLetters = queueNameOfArn(redrive.deadLetterTargetArn);
          ops.push(
            ...this.deleteOps(name, message),
            ...this.putOps(deadLetters, { ...message, visibleAtMs: now, receiveCount: 0, receipt: undefined, firstReceivedAtMs: undefined }),
          );
          moved.add(deadLetters);
        } else {
          const delivered: MessageRecord = {
            ...message,
            receiveCount: message.receiveCount + 1,
            firstReceivedAtMs: message.firstReceivedAtMs ?? now,
            visibleAtMs: now + timeoutMs,
            receipt: randomBytes(12).toString('base64url'),
          };
          ops.push({ type: 'del', key }, ...this.putOps(name, delivered));
          received.push({
            id: delivered.id,
            body: delivered.body,
            md5: delivered.md5,
            ...(delivered.attributes ? { attributes: delivered.attributes } : {}),
            receiptHandle: `${delivered.id}.${delivered.receipt}`,
            sentAtMs: delivered.sentAtMs,
            receiveCount: delivered.receiveCount,
            firstReceivedAtMs: delivered.firstReceivedAtMs!,
          });
        }
      }
      if (ops.length > 0) await this.db.batch(ops);
      for (const deadLetters of moved) this.sent.emit('sent', deadLetters);
      return received;
    });
  }

  /**
   * Deletes the message the receipt handle was given for. As in SQS, deleting a message that is gone
   * succeeds; a handle from an earlier receive of a message received again since deletes nothing.
   */
  delete(name: string, receiptHandle: string): Promise<void> {
    this.queueOf(name);
    const [id, receipt] = receiptHandle.split('.');
    if (!id || !receipt || receiptHandle.split('.').length !== 2) {
      return Promise.reject(new QueueStoreError('ReceiptHandleIsInvalid', `The receipt handle "${receiptHandle.slice(0, 100)}" is not valid`));
    }
    return this.locked(name, async () => {
      const stored = await this.db.get(messageKey(name, id));
      if (stored === undefined) return;
      const message = JSON.parse(stored) as MessageRecord;
      if (message.receipt === receipt) await this.db.batch(this.deleteOps(name, message));
    });
  }

  /** How many messages can be received now, are in flight, or wait for their delay. */
  async counts(name: string): Promise<QueueCounts> {
    this.queueOf(name);
    const now = Date.now();
    const counts: QueueCounts = { visible: 0, inFlight: 0, delayed: 0 };
    const prefix = duePrefix(name);
    for await (const key of this.db.keys({ gte: prefix, lt: `${prefix}~` })) {
      const dueAt = Number(key.slice(prefix.length, prefix.length + 15));
      if (dueAt <= now) counts.visible++;
      else if (key[prefix.length + 16] === 'r') counts.inFlight++;
      else counts.delayed++;
    }
    return counts;
  }

  /** When the next message of the queue becomes receivable, if any waits. */
  async nextDueAtMs(name: string): Promise<number | undefined> {
    const prefix = duePrefix(name);
    for await (const key of this.db.keys({ gte: prefix, lt: `${prefix}~`, limit: 1 })) {
      return Number(key.slice(prefix.length, prefix.length + 15));
    }
    return undefined;
  }

  private releaseInFlight(name: string): Promise<void> {
    return this.locked(name, async () => {
      const now = Date.now();
      const prefix = duePrefix(name);
      const ops: Op[] = [];
      for await (const key of this.db.keys({ gt: dueBefore(name, now), lt: `${prefix}~` })) {
        if (key[prefix.length + 16] !== 'r') continue;
        const stored = await this.db.get(messageKey(name, key.slice(key.lastIndexOf(':') + 1)));
        if (stored === undefined) continue;
        ops.push({ type: 'del', key }, ...this.putOps(name, { ...(JSON.parse(stored) as MessageRecord), visibleAtMs: now }));
      }
      if (ops.length > 0) await this.db.batch(ops);
    });
  }

  private putOps(queue: string, message: MessageRecord): Op[] {
    return [
      { type: 'put', key: messageKey(queue, message.id), value: JSON.stringify(message) },
      { type: 'put', key: dueKey(queue, message), value: '' },
    ];
  }

  private deleteOps(queue: string, message: MessageRecord): Op[] {
    return [
      { type: 'del', key: messageKey(queue, message.id) },
      { type: 'del', key: dueKey(queue, message) },
    ];
  }

  private queueOf(name: string): QueueRecord {
    const queue = this.queues.get(name);
    if (!queue) throw new QueueStoreError('QueueDoesNotExist', `The queue ${name} does not exist`);
    return queue;
  }

  /** Receives and deletes of one queue run one at a time, so no message is handed out twice at once. */
  private locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(name) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.locks.set(name, settled);
    void settled.then(() => {
      if (this.locks.get(name) === settled) this.locks.delete(name);
    });
    return next;
  }
}
