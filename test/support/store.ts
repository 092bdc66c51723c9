import type { QueuePort } from '#shared/domain/ports.ts';
import type { RecordSessionsDeps } from '#shared/domain/sessions/ingest.ts';
import type { Store } from '#shared/domain/store.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { apiKeysRepository } from '#shared/store/api-keys.ts';
import type { Db } from '#shared/store/client.ts';
import { deliveriesRepository } from '#shared/store/deliveries.ts';
import { evaluationUsageRepository } from '#shared/store/evaluation-usage.ts';
import { experimentsRepository } from '#shared/store/experiments.ts';
import { exportsRepository } from '#shared/store/exports.ts';
import { composeStore } from '#shared/store/index.ts';
import { linkTokensRepository } from '#shared/store/link-tokens.ts';
import { profilesRepository } from '#shared/store/profiles.ts';
import { rateLimitsRepository } from '#shared/store/rate-limits.ts';
import { refreshTokensRepository } from '#shared/store/refresh-tokens.ts';
import { reindexRepository } from '#shared/store/reindex.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { signInFailuresRepository } from '#shared/store/sign-in-failures.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { logsRepository, signalsRepository } from '#shared/store/timeline.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { usersRepository } from '#shared/store/users.ts';

/** Every repository over one table client: the tests' view of the whole store (a function names only its own). */
export function createStore(db: Db): Store {
  return composeStore(
    {
      users: usersRepository,
      agents: agentsRepository,
      alerts: alertsRepository,
      traces: tracesRepository,
      signals: signalsRepository,
      logs: logsRepository,
      tenants: tenantsRepository,
      apiKeys: apiKeysRepository,
      linkTokens: linkTokensRepository,
      refreshTokens: refreshTokensRepository,
      rateLimits: rateLimitsRepository,
      deliveries: deliveriesRepository,
      evaluationUsage: evaluationUsageRepository,
      rollups: rollupsRepository,
      experiments: experimentsRepository,
      profiles: profilesRepository,
      exports: exportsRepository,
      signInFailures: signInFailuresRepository,
      sessions: sessionsRepository,
      reindex: reindexRepository,
    },
    db,
  );
}

/** A queue for a test that queues nothing: a send fails the test. */
export const noSends: QueuePort = {
  send: async (queueId, messages) => {
    throw new Error(`unexpected send to ${queueId}: ${JSON.stringify(messages)}`);
  },
};

/** What `recordSessions` needs, over a store: by default a queue that must not be used (no session in the test is large). */
export const sessionDeps = (store: Pick<Store, 'sessions' | 'traces'>, queue: QueuePort = noSends): RecordSessionsDeps => ({
  store,
  queue,
  clock: { now: () => new Date() },
});
