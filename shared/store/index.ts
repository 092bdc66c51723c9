import { agentsRepository } from './agents.ts';
import { alertsRepository } from './alerts.ts';
import { apiKeysRepository } from './api-keys.ts';
import { createDb, type Db } from './client.ts';
import { deliveriesRepository } from './deliveries.ts';
import { evaluationUsageRepository } from './evaluation-usage.ts';
import { experimentsRepository } from './experiments.ts';
import { linkTokensRepository } from './link-tokens.ts';
import { profilesRepository } from './profiles.ts';
import { rateLimitsRepository } from './rate-limits.ts';
import { rollupsRepository } from './rollups.ts';
import { tenantsRepository } from './tenants.ts';
import { timelineRepository, type StoredLog, type StoredSignal } from './timeline.ts';
import { tracesRepository } from './traces.ts';
import { usersRepository } from './users.ts';

export function createStore(db: Db) {
  return {
    users: usersRepository(db),
    agents: agentsRepository(db),
    alerts: alertsRepository(db),
    traces: tracesRepository(db),
    signals: timelineRepository<StoredSignal>(db, 'SIGNAL'),
    logs: timelineRepository<StoredLog>(db, 'LOG'),
    tenants: tenantsRepository(db),
    apiKeys: apiKeysRepository(db),
    linkTokens: linkTokensRepository(db),
    rateLimits: rateLimitsRepository(db),
    deliveries: deliveriesRepository(db),
    evaluationUsage: evaluationUsageRepository(db),
    rollups: rollupsRepository(db),
    experiments: experimentsRepository(db),
    profiles: profilesRepository(db),
  };
}
export type Store = ReturnType<typeof createStore>;

export { createDb };
