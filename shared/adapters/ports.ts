import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { config } from '../config.ts';
import type { ExternalIssuer } from '../config.ts';
import type { SigningMaterial } from '../domain/accounts/signing-keys.ts';
import { createDb, createStore, type Store } from '../store/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { randomIds, type Ids } from './ids.ts';
import { sqsQueue, type QueuePort } from './queue.ts';
import { signingMaterialLoader } from './signing.ts';

/**
 * The side effects every handler may have. Handlers take these as an argument; tests pass fakes.
 * Adapters only some workers use (mailer and SMS, the metrics sink, the judge, the narrator) are
 * wired in those workers, so the other functions' bundles do not carry their AWS clients.
 */
export interface Ports {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
  signing: () => Promise<SigningMaterial>;
  externalKeySet: (issuer: ExternalIssuer) => JWTVerifyGetKey;
}

function remoteKeySets(): (issuer: ExternalIssuer) => JWTVerifyGetKey {
  const cache = new Map<string, JWTVerifyGetKey>();
  return (issuer) => {
    const url = issuer.jwksUrl ?? `${issuer.issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
    let set = cache.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cooldownDuration: 30_000 });
      cache.set(url, set);
    }
    return set;
  };
}

let ports: Ports | undefined;

/** The real adapters, made once per process (a Lambda container, or the local runtime). */
export function defaultPorts(): Ports {
  if (ports) return ports;
  ports = {
    store: createStore(createDb(config.tableName)),
    clock: systemClock,
    ids: randomIds,
    queue: sqsQueue(),
    signing: signingMaterialLoader({ seed: config.signingSeed, secretArn: config.signingSeedSecretArn }),
    externalKeySet: remoteKeySets(),
  };
  return ports;
}
