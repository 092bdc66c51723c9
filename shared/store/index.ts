import type { Store } from '../domain/store.ts';
import type { Db } from './client.ts';

/** The factories of some repositories, by their names in the store (`{ apiKeys: apiKeysRepository }`). */
export type Repositories<K extends keyof Store> = { [P in K]: (db: Db) => Store[P] };

/**
 * The named repositories over one table client. A function's store holds only the repositories it
 * names, so its bundle carries only their modules and what they import: only the functions that read
 * or write rollups carry the latency sketches and their protobuf codec.
 */
export function composeStore<K extends keyof Store>(repositories: Repositories<K>, db: Db): Pick<Store, K> {
  const store: Partial<Pick<Store, K>> = {};
  for (const name of Object.keys(repositories) as K[]) store[name] = repositories[name](db);
  return store as Pick<Store, K>;
}
