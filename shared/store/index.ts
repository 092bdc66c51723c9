import type { agentsRepository } from './agents.ts';
import type { alertsRepository } from './alerts.ts';
import type { apiKeysRepository } from './api-keys.ts';
import type { Db } from './client.ts';
import type { deliveriesRepository } from './deliveries.ts';
import type { evaluationUsageRepository } from './evaluation-usage.ts';
import type { experimentsRepository } from './experiments.ts';
import type { linkTokensRepository } from './link-tokens.ts';
import type { profilesRepository } from './profiles.ts';
import type { rateLimitsRepository } from './rate-limits.ts';
import type { refreshTokensRepository } from './refresh-tokens.ts';
import type { reindexRepository } from './reindex.ts';
import type { rollupsRepository } from './rollups.ts';
import type { sessionsRepository } from './sessions.ts';
import type { signInFailuresRepository } from './sign-in-failures.ts';
import type { tenantsRepository } from './tenants.ts';
import type { logsRepository, signalsRepository } from './timeline.ts';
import type { tracesRepository } from './traces.ts';
import type { usersRepository } from './users.ts';

/**
 * Every repository by its name in the store. A function's store holds only the repositories it names
 * (`composeStore`), so its bundle carries only their modules and what they import: only the functions
 * that read or write rollups carry the latency sketches and their protobuf codec.
 */
export interface Store {
  users: ReturnType<typeof usersRepository>;
  agents: ReturnType<typeof agentsRepository>;
  alerts: ReturnType<typeof alertsRepository>;
  traces: ReturnType<typeof tracesRepository>;
  signals: ReturnType<typeof signalsRepository>;
  logs: ReturnType<typeof logsRepository>;
  tenants: ReturnType<typeof tenantsRepository>;
  apiKeys: ReturnType<typeof apiKeysRepository>;
  linkTokens: ReturnType<typeof linkTokensRepository>;
  refreshTokens: ReturnType<typeof refreshTokensRepository>;
  rateLimits: ReturnType<typeof rateLimitsRepository>;
  deliveries: ReturnType<typeof deliveriesRepository>;
  evaluationUsage: ReturnType<typeof evaluationUsageRepository>;
  rollups: ReturnType<typeof rollupsRepository>;
  experiments: ReturnType<typeof experimentsRepository>;
  profiles: ReturnType<typeof profilesRepository>;
  signInFailures: ReturnType<typeof signInFailuresRepository>;
  sessions: ReturnType<typeof sessionsRepository>;
  reindex: ReturnType<typeof reindexRepository>;
}

/** The factories of some repositories, by their names in the store (`{ apiKeys: apiKeysRepository }`). */
export type Repositories<K extends keyof Store> = { [P in K]: (db: Db) => Store[P] };

/** The named repositories over one table client. */
export function composeStore<K extends keyof Store>(repositories: Repositories<K>, db: Db): Pick<Store, K> {
  const store: Partial<Pick<Store, K>> = {};
  for (const name of Object.keys(repositories) as K[]) store[name] = repositories[name](db);
  return store as Pick<Store, K>;
}
