import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueAccessToken, providerOf, verifyAccessToken, type VerifierDeps } from '../../../shared/domain/accounts/jwt.ts';
import { keySetOf } from '../../../shared/domain/accounts/jws.ts';
import { signingMaterialFromSeed } from '../../../shared/domain/accounts/signing-keys.ts';
import { UnauthorizedError } from '../../../shared/domain/errors.ts';

const settings = { issuer: 'urn:aos:test', audience: 'aos-api', ttlSeconds: 3600 };
const COGNITO = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test';
const now = new Date('2026-03-01T12:00:00Z');
const claims = { userId: 'usr_1', tenantId: 'tnt_1', email: 'a@example.com' };

const keys = await signingMaterialFromSeed('jwt-unit-test-seed-0123456789012345678901234567890');
const cognitoKeys = await generateKeyPair('RS256');
const cognitoJwk: JWK = { ...(await exportJWK(cognitoKeys.publicKey)), kid: 'cognito-1', alg: 'RS256' };

const deps = (overrides: Partial<VerifierDeps> = {}): VerifierDeps => ({
  keys,
  settings,
  externalIssuers: [{ issuer: COGNITO, audiences: ['client-1'] }],
  externalKeySet: () => async (header) => keySetOf({ keys: [cognitoJwk] })(header),
  now: () => now,
  ...overrides,
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function expectRefused(token: string, d = deps()) {
  await expect(verifyAccessToken(token, d)).rejects.toBeInstanceOf(UnauthorizedError);
}

describe('own access tokens', () => {
  it('round-trip with ES256, kid, iss, aud, exp, sub, email', async () => {
    const { accessToken, expiresIn } = await issueAccessToken(claims, keys, settings, now);
    expect(expiresIn).toBe(3600);
    const [header, payload] = accessToken.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p!, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'ES256', kid: keys.kid });
    expect(payload).toMatchObject({ iss: settings.issuer, aud: settings.audience, sub: 'usr_1', email: 'a@example.com', tid: 'tnt_1' });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(await verifyAccessToken(accessToken, deps())).toEqual({ kind: 'own', claims });
  });

  it('are refused once expired', async () => {
    const { accessToken } = await issueAccessToken(claims, keys, settings, new Date(now.getTime() - 3601_000));
    await expectRefused(accessToken);
  });

  it('are refused with alg none', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: settings.issuer, aud: settings.audience, sub: 'usr_1', tid: 'tnt_1', exp: 9999999999 })}.`;
    await expectRefused(token);
  });

  it('are refused when HS256-signed with the public key (algorithm confusion)', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(keys.publicJwk));
    const token = await new SignJWT({ tid: 'tnt_1' })
      .setProtectedHeader({ alg: 'HS256', kid: keys.kid })
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setSubject('usr_1')
      .setExpirationTime('1h')
      .sign(secret);
    await expectRefused(token);
  });

  it('are refused with a tampered payload or signature', async () => {
    const { accessToken } = await issueAccessToken(claims, keys, settings, now);
    const [h, p, s] = accessToken.split('.') as [string, string, string];
    const forged = b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), tid: 'tnt_other' });
    await expectRefused(`${h}.${forged}.${s}`);
    await expectRefused(`${h}.${p}.${s.slice(0, -2)}${s.endsWith('A') ? 'BB' : 'AA'}`);
  });

  it('are refused from another deployment (other key) or for another audience', async () => {
    const other = await signingMaterialFromSeed('another-deployment-seed-012345678901234567890123');
    await expectRefused((await issueAccessToken(claims, other, settings, now)).accessToken);
    await expectRefused((await issueAccessToken(claims, keys, { ...settings, audience: 'other' }, now)).accessToken);
  });

  it('garbage is refused as unauthorised, not as a server error', async () => {
    await expectRefused('not-a-jwt');
    await expectRefused('a.b.c');
  });
});

describe('external issuer (Cognito) tokens', () => {
  const cognitoToken = (payload: Record<string, unknown>, alg = 'RS256') =>
    new SignJWT(payload)
      .setProtectedHeader({ alg, kid: 'cognito-1' })
      .setIssuer(COGNITO)
      .setSubject('cognito-sub-1')
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(now.getTime() / 1000) + 600)
      .sign(cognitoKeys.privateKey);

  it('are accepted for a configured issuer and audience', async () => {
    const verified = await verifyAccessToken(await cognitoToken({ aud: 'client-1', email: 'c@example.com' }), deps());
    expect(verified).toMatchObject({ kind: 'external', issuer: COGNITO, subject: 'cognito-sub-1' });
  });

  it('accept access tokens that carry client_id instead of aud', async () => {
    const verified = await verifyAccessToken(await cognitoToken({ client_id: 'client-1' }), deps());
    expect(verified.kind).toBe('external');
  });

  it('are refused for another app client or an unconfigured issuer', async () => {
    await expectRefused(await cognitoToken({ aud: 'client-2' }));
    await expectRefused(await cognitoToken({ aud: 'client-1' }), deps({ externalIssuers: [] }));
  });

  it('name the provider from the identities claim', () => {
    expect(providerOf({ identities: [{ providerName: 'Google' }] })).toBe('google');
    expect(providerOf({ identities: [{ providerName: 'GitHub' }] })).toBe('github');
    expect(providerOf({})).toBe('local');
  });
});
