import { getCurrentAndPreviousStrings, type SecretCaching, secretLoader } from '../adapters/secrets-manager.ts';
import { remoteKeySets, signingMaterialLoader } from '../adapters/signing.ts';
import { config } from '../config.ts';
import type { Store } from '../domain/store.ts';
import type { CredentialPorts } from '../http/auth.ts';
import type { GuardRepository, RoutePorts } from '../http/route.ts';
import { apiKeysRepository } from '../store/api-keys.ts';
import type { Repositories } from '../store/index.ts';
import { rateLimitsRepository } from '../store/rate-limits.ts';
import { tenantsRepository } from '../store/tenants.ts';
import { usersRepository } from '../store/users.ts';
import { type Adapters, portsOf } from './ports.ts';

/**
 * The console distribution's origin secret is read again every 15 minutes, so that a new value
 * reaches warm functions too (docs/limits-and-plans.md); a value once read serves while it cannot be
 * read again. Before any value was read, requests count by the address API Gateway saw, and it is
 * asked again after 30 s, not by every request. Its failed reads are logged under its name.
 */
const ORIGIN_SECRET_CACHING: SecretCaching = { maxAgeMs: 15 * 60_000, retryAfterMs: 30_000, logAs: "the console distribution's origin secret" };

const GUARD_REPOSITORIES: Repositories<GuardRepository> = {
  apiKeys: apiKeysRepository,
  users: usersRepository,
  tenants: tenantsRepository,
  rateLimits: rateLimitsRepository,
};

/**
 * A route's real ports (made once per process): the guard's repositories and credentials, plus the
 * repositories and adapters its handler uses, e.g. `routePorts({ agents: agentsRepository }, { queue: sqsQueue })`.
 */
export function routePorts<K extends keyof Store = never, E extends object = object>(
  repositories?: Repositories<K>,
  adapters?: Adapters<E>,
): () => RoutePorts<K, E> {
  const credentials: Adapters<CredentialPorts> = {
    signing: () => signingMaterialLoader({ seed: config.signingSeed, secretArn: config.signingSeedSecretArn }),
    externalKeySet: remoteKeySets,
    originSecret: () =>
      secretLoader(
        { value: config.originSecret === undefined ? undefined : [config.originSecret], secretArn: config.originSecretArn },
        getCurrentAndPreviousStrings,
        ORIGIN_SECRET_CACHING,
      ),
  };
  return portsOf(
    { ...GUARD_REPOSITORIES, ...repositories } as Repositories<K | GuardRepository>,
    { ...credentials, ...adapters } as Adapters<CredentialPorts & E>,
  );
}
