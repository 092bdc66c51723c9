import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '../adapters/clock.ts';
import { randomIds } from '../adapters/ids.ts';
import { config } from '../config.ts';
import type { Ports, Store } from '../domain/store.ts';
import { traced } from '../observability/tracer.ts';
import { createDb, type Db } from '../store/client.ts';
import { composeStore, type Repositories } from '../store/index.ts';

/** Factories of adapters by port name (`{ queue: sqsQueue }`). */
export type Adapters<E> = { [P in keyof E]: () => E[P] };

/** The one table client of the process, shared by every function's store. */
let db: Db | undefined;

/**
 * A function's real ports, made on first use and kept for the process (a Lambda container, or the
 * local runtime): the named repositories over the table, the system clock and random ids, and one of
 * each named adapter.
 */
export function portsOf<K extends keyof Store, E extends object = object>(repositories: Repositories<K>, adapters?: Adapters<E>): () => Ports<K> & E {
  let ports: (Ports<K> & E) | undefined;
  return () => {
    if (ports) return ports;
    const made: Partial<E> = {};
    for (const name of Object.keys(adapters ?? {}) as (keyof E)[]) made[name] = adapters![name]();
    db ??= createDb(config.tableName, traced(new DynamoDBClient({})));
    ports = { ...(made as E), store: composeStore(repositories, db), clock: systemClock, ids: randomIds };
    return ports;
  };
}
