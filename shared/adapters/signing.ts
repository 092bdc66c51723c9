import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, type JSONWebKeySet } from 'jose';
import { type ExternalIssuer, type ExternalKeySet, keysUrlOf } from '../domain/accounts/jwt.ts';
import { type SigningMaterial, signingMaterialFromSeed } from '../domain/accounts/signing-keys.ts';
import { getSecretString, secretLoader } from './secrets-manager.ts';

/** The signing seed: given directly (local), or read once per cold start from Secrets Manager (AWS). */
export function signingMaterialLoader(
  source: { seed?: string; secretArn?: string },
  readSecret: (secretArn: string) => Promise<string> = getSecretString,
): () => Promise<SigningMaterial> {
  const seed = secretLoader({ value: source.seed, secretArn: source.secretArn }, readSecret);
  let loaded: Promise<SigningMaterial> | undefined;
  return () => {
    loaded ??= seed().then((value) => {
      if (value === undefined) throw new Error('invalid configuration: this function needs SIGNING_SEED or SIGNING_SEED_SECRET_ARN');
      return signingMaterialFromSeed(value);
    });
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
  /** While the issuer cannot be reached, the set last read still serves until this long after it was read. */
  staleGraceMs: number;
  /** Larger answers are refused (Cognito's is about 1 KB). */
  maxBytes: number;
  fetch: FetchImplementation;
}

const REMOTE_KEY_SET_DEFAULTS: RemoteKeySetOptions = {
  timeoutMs: 3000,
  cooldownMs: 30_000,
  maxAgeMs: 10 * 60_000,
  staleGraceMs: 60 * 60_000,
  maxBytes: 256 * 1024,
  fetch: (url, init) => fetch(url, init),
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
 * An issuer's JWKS through jose's `createRemoteJWKSet`, which caches the set (`maxAgeMs`), refetches it
 * for a key id it lacks at most once per `cooldownMs`, fetches one at a time and follows no redirect.
 * Its fetch is ours, for what jose leaves open: an answer's size is bounded; after a failed fetch the
 * issuer is not asked again within the cooldown either; and while it cannot be reached, the set last
 * read still serves for `staleGraceMs` after it was read. When nothing usable is at hand, tokens are
 * refused as unverifiable (401), as with a key the set does not hold.
 */
export function remoteKeySet(url: URL, options: Partial<RemoteKeySetOptions> = {}): ExternalKeySet {
  const settings = { ...REMOTE_KEY_SET_DEFAULTS, ...options };
  let lastRead: { keys: JSONWebKeySet; readAt: number } | undefined;
  let failedAt = -Infinity;

  const unavailable = (cause?: unknown): Response => {
    if (lastRead && Date.now() - lastRead.readAt <= settings.staleGraceMs) return Response.json(lastRead.keys);
    throw new errors.JOSEError(`the JWKS at ${url.href} could not be read`, { cause });
  };
  const guardedFetch: FetchImplementation = async (href, init) => {
    if (Date.now() - failedAt < settings.cooldownMs) return unavailable();
    try {
      const keys = (await boundedJson(await settings.fetch(href, init), settings.maxBytes)) as JSONWebKeySet;
      lastRead = { keys, readAt: Date.now() };
      return Response.json(keys);
    } catch (err) {
      failedAt = Date.now();
      return unavailable(err);
    }
  };
  return createRemoteJWKSet(url, {
    timeoutDuration: settings.timeoutMs,
    cooldownDuration: settings.cooldownMs,
    cacheMaxAge: settings.maxAgeMs,
    [customFetch]: guardedFetch,
  });
}

/** The key sets of external identity providers (their JWKS), fetched on demand and cached per URL. */
export function remoteKeySets(): (issuer: ExternalIssuer) => ExternalKeySet {
  const cache = new Map<string, ExternalKeySet>();
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
