import { createHash, createPublicKey, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * Compact JWS tokens (RFC 7515/7519) over node:crypto, for the two algorithms the service meets: ES256
 * (its own tokens) and RS256 (external issuers such as Cognito). A JOSE library would add ~21 KB to
 * every function bundle for these few lines.
 */
export type JwsAlgorithm = 'ES256' | 'RS256';

export interface JwsHeader {
  alg: string;
  kid?: string;
  typ?: string;
  [parameter: string]: unknown;
}

export type JwtPayload = Record<string, unknown> & {
  iss?: unknown;
  sub?: unknown;
  aud?: unknown;
  exp?: unknown;
  nbf?: unknown;
  iat?: unknown;
};

export interface Jwk extends JsonWebKey {
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
}

/** The keys that may have signed a token with this header. */
export type KeySet = (header: JwsHeader) => Promise<readonly KeyObject[]>;

/** A token that is malformed, not signed by a key of the set, or whose claims do not hold. */
export class InvalidJwtError extends Error {}

const ALGORITHMS: Record<JwsAlgorithm, { keyType: 'ec' | 'rsa'; jwkType: 'EC' | 'RSA'; sign: { dsaEncoding?: 'ieee-p1363' } }> = {
  ES256: { keyType: 'ec', jwkType: 'EC', sign: { dsaEncoding: 'ieee-p1363' } },
  RS256: { keyType: 'rsa', jwkType: 'RSA', sign: {} },
};

const isAlgorithm = (alg: unknown): alg is JwsAlgorithm => typeof alg === 'string' && Object.hasOwn(ALGORITHMS, alg);

/** Whether a key may verify (or sign) with the algorithm: P-256 for ES256, RSA of 2048 bits or more for RS256. */
function fits(key: KeyObject, alg: JwsAlgorithm): boolean {
  if (key.asymmetricKeyType !== ALGORITHMS[alg].keyType) return false;
  const details = key.asymmetricKeyDetails ?? {};
  return alg === 'ES256' ? details.namedCurve === 'prime256v1' : (details.modulusLength ?? 0) >= 2048;
}

const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The bytes of a part in canonical unpadded base64url: another spelling of the same bytes is refused. */
function bytesOf(part: string): Buffer {
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) throw new InvalidJwtError('a token part is not canonical base64url');
  return bytes;
}

function decodePart(part: string): Record<string, unknown> {
  const bytes = bytesOf(part);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new InvalidJwtError('a token part is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidJwtError('a token part is not a JSON object');
  return value as Record<string, unknown>;
}

function partsOf(token: string): [string, string, string] {
  const parts = token.split('.');
  if (parts.length !== 3) throw new InvalidJwtError('a token has three parts');
  return parts as [string, string, string];
}

export function signJwt(header: JwsHeader & { alg: JwsAlgorithm }, payload: JwtPayload, privateKey: KeyObject): string {
  if (!fits(privateKey, header.alg)) throw new Error(`the key cannot sign ${header.alg}`);
  const input = `${encode(header)}.${encode(payload)}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, ...ALGORITHMS[header.alg].sign });
  return `${input}.${signature.toString('base64url')}`;
}

/** The payload, unverified: only to choose how to verify the token. */
export function decodeJwtPayload(token: string): JwtPayload {
  return decodePart(partsOf(token)[1]);
}

export interface VerifyOptions {
  algorithms: readonly JwsAlgorithm[];
  issuer: string;
  /** When given, `aud` must be it or a list that holds it. */
  audience?: string;
  requiredClaims: readonly string[];
  now: Date;
}

const numericDate = (payload: JwtPayload, claim: 'exp' | 'nbf' | 'iat'): number | undefined => {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidJwtError(`"${claim}" is not a NumericDate`);
  return value;
};

function checkClaims(payload: JwtPayload, options: VerifyOptions): void {
  for (const claim of options.requiredClaims) if (payload[claim] === undefined) throw new InvalidJwtError(`"${claim}" is missing`);
  if (payload.iss !== options.issuer) throw new InvalidJwtError('unexpected "iss"');
  if (options.audience !== undefined) {
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    if (!audiences.includes(options.audience)) throw new InvalidJwtError('unexpected "aud"');
  }
  const now = Math.floor(options.now.getTime() / 1000);
  const exp = numericDate(payload, 'exp');
  if (exp !== undefined && exp <= now) throw new InvalidJwtError('expired');
  const nbf = numericDate(payload, 'nbf');
  if (nbf !== undefined && nbf > now) throw new InvalidJwtError('not yet valid');
  numericDate(payload, 'iat');
}

/**
 * The payload of a token signed with one of the algorithms by a key of the set, once its claims hold.
 * Refuses unknown critical header parameters, `none`, and any algorithm or key type not asked for.
 */
export async function verifyJwt(token: string, keys: KeySet, options: VerifyOptions): Promise<JwtPayload> {
  const [headerPart, payloadPart, signaturePart] = partsOf(token);
  const header = decodePart(headerPart) as JwsHeader;
  if (header.crit !== undefined) throw new InvalidJwtError('critical header parameters are not supported');
  const alg = header.alg;
  if (!isAlgorithm(alg) || !options.algorithms.includes(alg)) throw new InvalidJwtError('algorithm not allowed');
  const signature = bytesOf(signaturePart);
  const input = Buffer.from(`${headerPart}.${payloadPart}`);
  const candidates = (await keys(header)).filter((key) => fits(key, alg));
  if (!candidates.some((key) => verify('sha256', input, { key, ...ALGORITHMS[alg].sign }, signature))) {
    throw new InvalidJwtError('signature verification failed');
  }
  const payload = decodePart(payloadPart);
  checkClaims(payload, options);
  return payload;
}

/** A set of one key, whatever the header names. */
export const singleKey = (key: KeyObject): KeySet => async () => [key];

/** The RFC 7638 SHA-256 thumbprint of a P-256 public key: the `kid` of the service's own key. */
export function ecThumbprint(jwk: { crv: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: 'EC', x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

function importJwk(jwk: Jwk): KeyObject | undefined {
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/** Where an issuer's keys are read: its `jwksUrl`, else `<issuer>/.well-known/jwks.json`, where Cognito publishes them. */
export const keysUrlOf = (issuer: { issuer: string; jwksUrl?: string | undefined }): string =>
  issuer.jwksUrl ?? `${issuer.issuer.replace(/\/$/, '')}/.well-known/jwks.json`;

/** Keys are read over https; over plain http only from this machine (a stand-in issuer in development). */
export function isTrustedKeysUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || (protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname));
}

/** A JWK that carries private or secret key material: a key set holding one is leaking it, and it is never used. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * The keys of a JWKS document that may verify a token with this header: the header's `kid` (when it
 * names one), the algorithm's key type, and `alg`, `use` and `key_ops` when the key states them.
 */
export function keySetOf(document: unknown): (header: JwsHeader) => KeyObject[] {
  const entries = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(entries)) throw new InvalidJwtError('a JWKS document has a "keys" list');
  const jwks = entries.filter((k): k is Jwk => typeof k === 'object' && k !== null && !Array.isArray(k));
  const imported = new Map<Jwk, KeyObject | undefined>();
  return (header) => {
    const alg = header.alg;
    if (!isAlgorithm(alg)) return [];
    return jwks
      .filter(
        (jwk) =>
          (header.kid === undefined || jwk.kid === header.kid) &&
          jwk.kty === ALGORITHMS[alg].jwkType &&
          (jwk.alg === undefined || jwk.alg === alg) &&
          (jwk.use === undefined || jwk.use === 'sig') &&
          (jwk.key_ops === undefined || (Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) &&
          !PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member)),
      )
      .flatMap((jwk) => {
        if (!imported.has(jwk)) imported.set(jwk, importJwk(jwk));
        const key = imported.get(jwk);
        return key ? [key] : [];
      });
  };
}
