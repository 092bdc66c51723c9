import { decodeJwt, errors, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, jwtVerify, SignJWT } from 'jose';
import { UnauthorizedError } from '../errors.ts';
import type { SigningMaterial } from './signing-keys.ts';

/** The service signs its own tokens with ES256 (jose), over the P-256 key derived from the signing seed. */
export const OWN_ALGORITHM = 'ES256';
/** Cognito and most OIDC providers sign with RS256; nothing else is accepted from them. */
export const EXTERNAL_ALGORITHMS: readonly string[] = ['RS256'];

export type JwtPayload = JWTPayload;

/** The keys of an external issuer: jose's remote JWKS in production (adapters/signing.ts), a local set in tests. */
export type ExternalKeySet = JWTVerifyGetKey;

export interface AccessTokenClaims {
  userId: string;
  tenantId: string;
  email: string;
}

export interface JwtSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** P-256's group order n: an ECDSA signature (r, s) also verifies as (r, n − s). */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const P256_HALF_ORDER = P256_ORDER >> 1n;

const bigIntOf = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);

/**
 * The token with its ES256 signature in low-S form. ECDSA signatures are malleable: (r, n − s) verifies
 * as (r, s) does, so without one canonical form a signed token has two spellings. Ours always take the
 * low one, and the verifier refuses the other: any ES256 token the service signs with jose goes through here.
 */
export function withLowS(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  const s = bigIntOf(bytes.subarray(32));
  if (s <= P256_HALF_ORDER) return token;
  const low = Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex');
  return `${header}.${payload}.${Buffer.concat([bytes.subarray(0, 32), low]).toString('base64url')}`;
}

export async function issueAccessToken(
  claims: AccessTokenClaims,
  keys: SigningMaterial,
  settings: JwtSettings,
  now: Date,
): Promise<{ accessToken: string; expiresIn: number }> {
  const iat = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({ email: claims.email, tid: claims.tenantId })
    .setProtectedHeader({ alg: OWN_ALGORITHM, kid: keys.kid, typ: 'JWT' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + settings.ttlSeconds)
    .sign(keys.privateKey);
  return { accessToken: withLowS(token), expiresIn: settings.ttlSeconds };
}

export type VerifiedToken = { kind: 'own'; claims: AccessTokenClaims } | { kind: 'external'; issuer: string; subject: string; payload: JwtPayload };

/** An identity provider whose access tokens are accepted (`JWT_EXTERNAL_ISSUERS`): what verifying one needs. */
export interface ExternalIssuer {
  /** The expected `iss` claim. */
  issuer: string;
  /** Where its keys are published; default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string | undefined;
  /** The accepted audiences (a Cognito pool's app client ids). */
  audiences: readonly string[];
}

export interface VerifierDeps {
  keys: SigningMaterial;
  settings: JwtSettings;
  externalIssuers: readonly ExternalIssuer[];
  /** The key set of an external issuer (a remote JWKS in production, a local one in tests). */
  externalKeySet: (issuer: ExternalIssuer) => ExternalKeySet;
  now: () => Date;
}

const invalid = () => new UnauthorizedError('Invalid or expired access token');

/**
 * A compact JWS whose three parts are canonical unpadded base64url, so a token has one spelling:
 * jose's decoder also reads the bytes of a part whose last character's unused bits differ.
 */
function isCanonical(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => Buffer.from(part, 'base64url').toString('base64url') === part);
}

/** An ES256 signature of 64 bytes in low-S form (see withLowS). */
function hasLowS(token: string): boolean {
  const signature = Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url');
  return signature.length === 64 && bigIntOf(signature.subarray(32)) <= P256_HALF_ORDER;
}

/** Cognito user pools issue as `https://cognito-idp.<region>.amazonaws.com/<pool id>`. */
export function isCognitoIssuer(issuer: string): boolean {
  if (!URL.canParse(issuer)) return false;
  const { protocol, hostname } = new URL(issuer);
  return protocol === 'https:' && /^cognito-idp\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(hostname);
}

/**
 * What an external issuer's token must hold besides its signature, issuer and lifetime. A Cognito pool
 * issues ID tokens (`token_use: "id"`, the app client in `aud`) for the client and access tokens
 * (`token_use: "access"`, the app client in `client_id`, no `aud`) for APIs: only access tokens of a
 * configured app client are accepted. Any other issuer's tokens name a configured audience in `aud`.
 */
async function verifyExternal(token: string, issuer: ExternalIssuer, keySet: ExternalKeySet, currentDate: Date): Promise<JwtPayload> {
  const options: JWTVerifyOptions = { issuer: issuer.issuer, algorithms: [...EXTERNAL_ALGORITHMS], currentDate };
  if (!isCognitoIssuer(issuer.issuer)) {
    const { payload } = await jwtVerify(token, keySet, { ...options, audience: [...issuer.audiences], requiredClaims: ['sub', 'exp', 'aud'] });
    return payload;
  }
  const { payload } = await jwtVerify(token, keySet, { ...options, requiredClaims: ['sub', 'exp', 'token_use', 'client_id'] });
  if (payload['token_use'] !== 'access') throw invalid();
  const clientId = payload['client_id'];
  if (typeof clientId !== 'string' || !issuer.audiences.includes(clientId)) throw invalid();
  return payload;
}

export async function verifyAccessToken(token: string, deps: VerifierDeps): Promise<VerifiedToken> {
  if (!isCanonical(token)) throw invalid();
  let unverifiedIssuer: string | undefined;
  try {
    const { iss } = decodeJwt(token);
    unverifiedIssuer = iss;
  } catch {
    throw invalid();
  }
  const currentDate = deps.now();
  try {
    if (unverifiedIssuer === deps.settings.issuer) {
      if (!hasLowS(token)) throw invalid();
      const { payload } = await jwtVerify(token, deps.keys.publicKey, {
        issuer: deps.settings.issuer,
        audience: deps.settings.audience,
        algorithms: [OWN_ALGORITHM],
        requiredClaims: ['sub', 'exp', 'tid'],
        currentDate,
      });
      const { sub, tid, email } = payload;
      if (typeof sub !== 'string' || typeof tid !== 'string') throw invalid();
      return { kind: 'own', claims: { userId: sub, tenantId: tid, email: typeof email === 'string' ? email : '' } };
    }
    const external = deps.externalIssuers.find((i) => i.issuer === unverifiedIssuer);
    if (!external) throw invalid();
    const payload = await verifyExternal(token, external, deps.externalKeySet(external), currentDate);
    if (typeof payload.sub !== 'string') throw invalid();
    return { kind: 'external', issuer: external.issuer, subject: payload.sub, payload };
  } catch (err) {
    if (err instanceof UnauthorizedError) throw err;
    // jose's errors (a bad signature, claim or key set) and a key it refuses to use (TypeError).
    if (err instanceof errors.JOSEError || err instanceof TypeError) throw invalid();
    throw err;
  }
}

/** Maps a Cognito identity (its `identities` claim names federated providers) to the spec's providers. */
export function providerOf(payload: JwtPayload): 'local' | 'google' | 'github' {
  const identities = payload['identities'];
  const names = Array.isArray(identities) ? identities.map((i) => String((i as { providerName?: unknown }).providerName ?? '').toLowerCase()) : [];
  if (names.some((n) => n.includes('google'))) return 'google';
  if (names.some((n) => n.includes('github'))) return 'github';
  return 'local';
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
