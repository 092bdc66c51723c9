import type { QueueMessages, QueueName } from './queues.ts';
import type { TraceSummary } from './spans/summary.ts';

/** The adapters' ports: the domain declares what it needs, `shared/adapters` implements it. */

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new random id with a readable type prefix, e.g. `usr_4f9…`. */
  next(prefix: string): string;
}

export interface SendOptions {
  /** Seconds before the messages can be received (SQS allows up to 900). */
  delaySeconds?: number;
}

export interface QueuePort {
  /** Resolves only once the queue has accepted every message; otherwise throws and nothing is acknowledged. */
  send<Q extends QueueName>(queueId: Q, messages: readonly QueueMessages[Q][], options?: SendOptions): Promise<void>;
}

/** Where per-trace measures go besides the rollups: nowhere by default, Timestream when configured. */
export interface MetricsSink {
  writeTraces(tenantId: string, traces: readonly TraceSummary[]): Promise<void>;
}

/** Fixed-window counters: request limits per credential and tier, alert notifications per tenant. */
export interface RateLimitsRepository {
  /** Counts one hit in the window; resolves with the hits counted in it so far. */
  hit(credential: string, tier: string, windowStartSeconds: number, windowSeconds: number): Promise<number>;
}
