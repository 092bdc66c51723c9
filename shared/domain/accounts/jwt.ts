import type { ExternalIssuer } from '../../config.ts';
import { UnauthorizedError } from '../errors.ts';
import { decodeJwtPayload, InvalidJwtError, signJwt, singleKey, verifyJwt, type JwsAlgorithm, type JwtPayload, type KeySet } from './jws.ts';
import type { SigningMaterial } from './signing-keys.ts';

export const OWN_ALGORITHM: JwsAlgorithm = 'ES256';
/** Cognito and most OIDC providers sign with RS256; nothing else is accepted from them. */
export const EXTERNAL_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256'];

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
  const accessToken = signJwt(
    { alg: OWN_ALGORITHM, kid: keys.kid, typ: 'JWT' },
    {
      email: claims.email,
      tid: claims.tenantId,
      iss: settings.issuer,
      aud: settings.audience,
      sub: claims.userId,
      iat,
      exp: iat + settings.ttlSeconds,
    },
    keys.privateKey,
  );
  return { accessToken, expiresIn: settings.ttlSeconds };
}

export type VerifiedToken =
  | { kind: 'own'; claims: AccessTokenClaims }
  | { kind: 'external'; issuer: string; subject: string; payload: JwtPayload };

export interface VerifierDeps {
  keys: SigningMaterial;
  settings: JwtSettings;
  externalIssuers: readonly ExternalIssuer[];
  /** The key set of an external issuer (a remote JWKS in production, a local one in tests). */
  externalKeySet: (issuer: ExternalIssuer) => KeySet;
  now: () => Date;
}

const invalid = () => new UnauthorizedError('Invalid or expired access token');

export async function verifyAccessToken(token: string, deps: VerifierDeps): Promise<VerifiedToken> {
  let unverifiedIssuer: string | undefined;
  try {
    const { iss } = decodeJwtPayload(token);
    unverifiedIssuer = typeof iss === 'string' ? iss : undefined;
  } catch {
    throw invalid();
  }
  const currentDate = deps.now();
  try {
    if (unverifiedIssuer === deps.settings.issuer) {
      const payload = await verifyJwt(token, singleKey(deps.keys.publicKey), {
        issuer: deps.settings.issuer,
        audience: deps.settings.audience,
        algorithms: [OWN_ALGORITHM],
        requiredClaims: ['sub', 'exp', 'tid'],
        now: currentDate,
      });
      const { sub, tid, email } = payload;
      if (typeof sub !== 'string' || typeof tid !== 'string') throw invalid();
      return { kind: 'own', claims: { userId: sub, tenantId: tid, email: typeof email === 'string' ? email : '' } };
    }
    const external = deps.externalIssuers.find((i) => i.issuer === unverifiedIssuer);
    if (!external) throw invalid();
    const payload = await verifyJwt(token, deps.externalKeySet(external), {
      issuer: external.issuer,
      algorithms: EXTERNAL_ALGORITHMS,
      requiredClaims: ['sub', 'exp'],
      now: currentDate,
    });
    if (external.audiences.length > 0) {
      const audiences = [payload.aud, payload['client_id']].flat().filter((a): a is string => typeof a === 'string');
      if (!audiences.some((a) => external.audiences.includes(a))) throw invalid();
    }
    if (typeof payload.sub !== 'string') throw invalid();
    return { kind: 'external', issuer: external.issuer, subject: payload.sub, payload };
  } catch (err) {
    if (err instanceof UnauthorizedError) throw err;
    if (err instanceof InvalidJwtError) throw invalid();
    throw err;
  }
}

/** Maps a Cognito identity (its `identities` claim names federated providers) to the spec's providers. */
export function providerOf(payload: JwtPayload): 'local' | 'google' | 'github' {
  const identities = payload['identities'];
  const names = Array.isArray(identities)
    ? identities.map((i) => String((i as { providerName?: unknown }).providerName ?? '').toLowerCase())
    : [];
  if (names.some((n) => n.includes('google'))) return 'google';
  if (names.some((n) => n.includes('github'))) return 'github';
  return 'local';
}
