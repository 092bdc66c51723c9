import { SignJWT, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { ExternalIssuer } from '../../config.ts';
import { UnauthorizedError } from '../errors.ts';
import type { SigningMaterial } from './signing-keys.ts';

export const OWN_ALGORITHM = 'ES256';
/** Cognito and most OIDC providers sign with RS256; nothing else is accepted from them. */
export const EXTERNAL_ALGORITHMS = ['RS256'];

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

export async function issueAccessToken(
  claims: AccessTokenClaims,
  keys: SigningMaterial,
  settings: JwtSettings,
  now: Date,
): Promise<{ accessToken: string; expiresIn: number }> {
  const iat = Math.floor(now.getTime() / 1000);
  const accessToken = await new SignJWT({ email: claims.email, tid: claims.tenantId })
    .setProtectedHeader({ alg: OWN_ALGORITHM, kid: keys.kid, typ: 'JWT' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + settings.ttlSeconds)
    .sign(keys.privateKey);
  return { accessToken, expiresIn: settings.ttlSeconds };
}

export type VerifiedToken =
  | { kind: 'own'; claims: AccessTokenClaims }
  | { kind: 'external'; issuer: string; subject: string; payload: JWTPayload };

export interface VerifierDeps {
  keys: SigningMaterial;
  settings: JwtSettings;
  externalIssuers: readonly ExternalIssuer[];
  /** The key set of an external issuer (a remote JWKS in production, a local one in tests). */
  externalKeySet: (issuer: ExternalIssuer) => JWTVerifyGetKey;
  now: () => Date;
}

const invalid = () => new UnauthorizedError('Invalid or expired access token');

export async function verifyAccessToken(token: string, deps: VerifierDeps): Promise<VerifiedToken> {
  let unverifiedIssuer: string | undefined;
  try {
    unverifiedIssuer = decodeJwt(token).iss;
  } catch {
    throw invalid();
  }
  const currentDate = deps.now();
  try {
    if (unverifiedIssuer === deps.settings.issuer) {
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
    const { payload } = await jwtVerify(token, deps.externalKeySet(external), {
      issuer: external.issuer,
      algorithms: EXTERNAL_ALGORITHMS,
      requiredClaims: ['sub', 'exp'],
      currentDate,
    });
    if (external.audiences.length > 0) {
      const audiences = [payload.aud, payload['client_id']].flat().filter((a): a is string => typeof a === 'string');
      if (!audiences.some((a) => external.audiences.includes(a))) throw invalid();
    }
    return { kind: 'external', issuer: external.issuer, subject: payload.sub as string, payload };
  } catch (err) {
    if (err instanceof UnauthorizedError) throw err;
    if (err instanceof joseErrors.JOSEError) throw invalid();
    throw err;
  }
}

/** Maps a Cognito identity (its `identities` claim names federated providers) to the spec's providers. */
export function providerOf(payload: JWTPayload): 'local' | 'google' | 'github' {
  const identities = payload['identities'];
  const names = Array.isArray(identities)
    ? identities.map((i) => String((i as { providerName?: unknown }).providerName ?? '').toLowerCase())
    : [];
  if (names.some((n) => n.includes('google'))) return 'google';
  if (names.some((n) => n.includes('github'))) return 'github';
  return 'local';
}
