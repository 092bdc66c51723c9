import type {
  ApiKeysRepository,
  LinkTokensRepository,
  RefreshTokensRepository,
  SignInFailuresRepository,
  TenantsRepository,
  UsersRepository,
} from './accounts/ports.ts';
import type { AgentsRepository } from './agents/ports.ts';
import type { AlertsRepository } from './alerts/ports.ts';
import type { RollupsRepository } from './analytics/ports.ts';
import type { EvaluationUsageRepository } from './evaluation/ports.ts';
import type { ExperimentsRepository } from './experiments/ports.ts';
import type { ExportsRepository } from './lake/ports.ts';
import type { ReindexRepository } from './maintenance/ports.ts';
import type { DeliveriesRepository } from './notifications/ports.ts';
import type { Clock, Ids, RateLimitsRepository } from './ports.ts';
import type { ProfilesRepository } from './profiles/ports.ts';
import type { SessionsRepository } from './sessions/ports.ts';
import type { LogsRepository, SignalsRepository, TracesRepository } from './spans/ports.ts';

/**
 * Every repository by its name in the store; `shared/store` implements each. A function's store holds
 * only the repositories it names (`composeStore` in `shared/store/index.ts`).
 */
export interface Store {
  users: UsersRepository;
  agents: AgentsRepository;
  alerts: AlertsRepository;
  traces: TracesRepository;
  signals: SignalsRepository;
  logs: LogsRepository;
  tenants: TenantsRepository;
  apiKeys: ApiKeysRepository;
  linkTokens: LinkTokensRepository;
  refreshTokens: RefreshTokensRepository;
  rateLimits: RateLimitsRepository;
  deliveries: DeliveriesRepository;
  evaluationUsage: EvaluationUsageRepository;
  rollups: RollupsRepository;
  experiments: ExperimentsRepository;
  profiles: ProfilesRepository;
  exports: ExportsRepository;
  signInFailures: SignInFailuresRepository;
  sessions: SessionsRepository;
  reindex: ReindexRepository;
}

/**
 * What a use case is handed: the repositories it names (K), the clock and ids. Handlers take these as
 * an argument, so tests pass fakes; `shared/wiring` makes the real ones.
 */
export type Ports<K extends keyof Store = never> = {
  store: Pick<Store, K>;
  clock: Clock;
  ids: Ids;
};
