import type { ExternalIssuer } from '../config.ts';
import { InvalidJwtError, keySetOf, keysUrlOf, type KeySet } from '../domain/accounts/jws.ts';
import { signingMaterialFromSeed, type SigningMaterial } from '../domain/accounts/signing-keys.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { AwsCallError } from './aws-call.ts';
import { getSecretString } from './secrets-manager.ts';

/** The signing seed: given directly (local), or read once per cold start from Secrets Manager (AWS). */
export function signingMaterialLoader(
  source: { seed?: string; secretArn?: string },
  readSecret: (secretArn: string) => Promise<string> = getSecretString,
): () => Promise<SigningMaterial> {
  let loaded: Promise<SigningMaterial> | undefined;
  return () => {
    loaded ??= (async () => {
      if (source.seed) return signingMaterialFromSeed(source.seed);
      if (!source.secretArn) {
        throw new Error('invalid configuration: this function needs SIGNING_SEED or SIGNING_SEED_SECRET_ARN');
      }
      try {
        return signingMaterialFromSeed(await readSecret(source.secretArn));
      } catch (err) {
        // Secrets Manager throttling or down: the client may retry (503); a refusal stays a fault (500).
        if (err instanceof AwsCallError && err.retryable) throw new ServiceUnavailableError(5, { cause: err });
        throw err;
      }
    })();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
}

export interface RemoteKeySetOptions {
  timeoutMs: number;
  /** After any fetch, successful or not, the next waits this long: random key ids or a failing issuer cannot make every request fetch. */
  cooldownMs: number;
  /** The cached set is refetched when older than this. */
  maxAgeMs: number;
  /** While the issuer cannot be reached, a set older than maxAgeMs still serves for this long. */
  staleGraceMs: number;
  /** Larger answers are refused (Cognito's is about 1 KB). */
  maxBytes: number;
  now: () => number;
}

const REMOTE_KEY_SET_DEFAULTS: RemoteKeySetOptions = {
  timeoutMs: 3000,
  cooldownMs: 30_000,
  maxAgeMs: 10 * 60_000,
  staleGraceMs: 60 * 60_000,
  maxBytes: 256 * 1024,
  now: Date.now,
};

/** The body of a 200 answer, refused beyond maxBytes without reading further. */
async function boundedJson(response: Response, maxBytes: number): Promise<unknown> {
  if (response.status !== 200) throw new Error(`the JWKS answered ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw new Error('the JWKS is too large');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new Error('the JWKS is too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * An issuer's JWKS, fetched when first needed and cached; one fetch at a time, none within the
 * cooldown of the last, no redirects. When it cannot be fetched and nothing usable is cached, tokens
 * are refused as unverifiable (401), as with a key the set does not hold.
 */
export function remoteKeySet(url: URL, options: Partial<RemoteKeySetOptions> = {}): KeySet {
  const { timeoutMs, cooldownMs, maxAgeMs, staleGraceMs, maxBytes, now } = { ...REMOTE_KEY_SET_DEFAULTS, ...options };
  let cached: { select: ReturnType<typeof keySetOf>; fetchedAt: number } | undefined;
  let attemptedAt = -Infinity;
  let fetching: Promise<ReturnType<typeof keySetOf>> | undefined;
  const refetch = () =>
    (fetching ??= (async () => {
      attemptedAt = now();
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
        cached = { select: keySetOf(await boundedJson(response, maxBytes)), fetchedAt: now() };
        return cached.select;
      } catch (err) {
        throw new InvalidJwtError(`the JWKS at ${url.href} could not be read`, { cause: err });
      } finally {
        fetching = undefined;
      }
    })());
  /** What the cache holds for the header while the issuer cannot be asked: nothing once the set is past its grace. */
  const fromCache = (header: Parameters<KeySet>[0], cause?: unknown) => {
    if (cached && now() - cached.fetchedAt < maxAgeMs + staleGraceMs) return cached.select(header);
    if (cause) throw cause;
    throw new InvalidJwtError(`the JWKS at ${url.href} is not available yet`);
  };
  return async (header) => {
    const fresh = cached !== undefined && now() - cached.fetchedAt < maxAgeMs;
    const known = cached?.select(header) ?? [];
    if (fresh && known.length > 0) return known;
    if (!fetching && now() - attemptedAt < cooldownMs) return fromCache(header);
    try {
      return (await refetch())(header);
    } catch (err) {
      return fromCache(header, err);
    }
  };
}

/** The key sets of external identity providers (their JWKS), fetched on demand and cached per URL. */
export function remoteKeySets(): (issuer: ExternalIssuer) => KeySet {
  const cache = new Map<string, KeySet>();
  return (issuer) => {
    const url = keysUrlOf(issuer);
    let set = cache.get(url);
    if (!set) {
      set = remoteKeySet(new URL(url));
      cache.set(url, set);
    }
    return set;
  };
}
