import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import type { ScheduleDef } from '#shared/catalog.ts';
import { LOCAL_ACCOUNT } from './local-account.ts';

/** The event an EventBridge scheduled rule delivers to its target. */
export function scheduledEvent(schedule: ScheduleDef, now = new Date()): ScheduledEvent {
  const { region, accountId } = LOCAL_ACCOUNT;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: accountId,
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${accountId}:rule/aos-local-${schedule.id}`],
    detail: {},
  };
}

export interface Timers {
  /** Runs `task` (which handles its own errors) every `everyMs`; a run still going when the next is due is not doubled up. */
  every(everyMs: number, task: () => Promise<unknown>): void;
  /** Clears every timer and waits for the runs in progress. */
  stop(): Promise<void>;
}

export function createTimers(): Timers {
  const intervals: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  return {
    every(everyMs, task) {
      let current: Promise<unknown> | undefined;
      intervals.push(
        setInterval(() => {
          if (current) return;
          current = task().finally(() => {
            running.delete(current!);
            current = undefined;
          });
          running.add(current);
        }, everyMs),
      );
    },
    async stop() {
      intervals.forEach(clearInterval);
      await Promise.allSettled(running);
    },
  };
}
