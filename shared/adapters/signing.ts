import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ExternalIssuer } from '../config.ts';
import { InvalidJwtError, keySetOf, type KeySet } from '../domain/accounts/jws.ts';
import { signingMaterialFromSeed, type SigningMaterial } from '../domain/accounts/signing-keys.ts';

/** The signing seed: given directly (local), or read once per cold start from Secrets Manager (AWS). */
export function signingMaterialLoader(source: { seed?: string; secretArn?: string }): () => Promise<SigningMaterial> {
  let loaded: Promise<SigningMaterial> | undefined;
  return () => {
    loaded ??= (async () => {
      if (source.seed) return signingMaterialFromSeed(source.seed);
      if (!source.secretArn) {
        throw new Error('invalid configuration: this function needs SIGNING_SEED or SIGNING_SEED_SECRET_ARN');
      }
      const { SecretString } = await new SecretsManagerClient({}).send(
        new GetSecretValueCommand({ SecretId: source.secretArn }),
      );
      if (!SecretString) throw new Error('the signing secret is empty');
      return signingMaterialFromSeed(SecretString);
    })();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
}

export interface RemoteKeySetOptions {
  timeoutMs: number;
  /** A token naming a key the cached set lacks refetches it, at most once per cooldown. */
  cooldownMs: number;
  /** The cached set is refetched when older than this. */
  maxAgeMs: number;
  now: () => number;
}

const REMOTE_KEY_SET_DEFAULTS: RemoteKeySetOptions = { timeoutMs: 3000, cooldownMs: 30_000, maxAgeMs: 10 * 60_000, now: Date.now };

/**
 * An issuer's JWKS, fetched when first needed and cached; one fetch at a time. When it cannot be
 * fetched, tokens are refused as unverifiable (401), as with a key the set does not hold.
 */
export function remoteKeySet(url: URL, options: Partial<RemoteKeySetOptions> = {}): KeySet {
  const { timeoutMs, cooldownMs, maxAgeMs, now } = { ...REMOTE_KEY_SET_DEFAULTS, ...options };
  let cached: { select: ReturnType<typeof keySetOf>; fetchedAt: number } | undefined;
  let fetching: Promise<ReturnType<typeof keySetOf>> | undefined;
  const refetch = () =>
    (fetching ??= (async () => {
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) throw new Error(`the JWKS answered ${response.status}`);
        cached = { select: keySetOf(await response.json()), fetchedAt: now() };
        return cached.select;
      } catch (err) {
        throw new InvalidJwtError(`the JWKS at ${url.href} could not be read`, { cause: err });
      } finally {
        fetching = undefined;
      }
    })());
  return async (header) => {
    if (!cached || now() - cached.fetchedAt >= maxAgeMs) return (await refetch())(header);
    const keys = cached.select(header);
    if (keys.length > 0 || now() - cached.fetchedAt < cooldownMs) return keys;
    return (await refetch())(header);
  };
}

/** The key sets of external identity providers (their JWKS), fetched on demand and cached per URL. */
export function remoteKeySets(): (issuer: ExternalIssuer) => KeySet {
  const cache = new Map<string, KeySet>();
  return (issuer) => {
    const url = issuer.jwksUrl ?? `${issuer.issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
    let set = cache.get(url);
    if (!set) {
      set = remoteKeySet(new URL(url));
      cache.set(url, set);
    }
    return set;
  };
}
