import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  isCognitoIssuer,
  issueAccessToken,
  isTrustedKeysUrl,
  keysUrlOf,
  providerOf,
  type VerifierDeps,
  verifyAccessToken,
} from '#shared/domain/accounts/jwt.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { UnauthorizedError } from '#shared/domain/errors.ts';
import { seededRandom } from '../../support/random.ts';

const settings = { issuer: 'urn:aos:test', audience: 'aos-api', ttlSeconds: 3600 };
const COGNITO = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test';
const OIDC = 'https://idp.example.com';
const now = new Date('2026-03-01T12:00:00Z');
const claims = { userId: 'usr_1', tenantId: 'tnt_1', email: 'a@example.com' };

const keys = await signingMaterialFromSeed('jwt-unit-test-seed-0123456789012345678901234567890');
const cognitoKeys = await generateKeyPair('RS256', { extractable: true });
const cognitoJwk: JWK = { ...(await exportJWK(cognitoKeys.publicKey)), kid: 'cognito-1', alg: 'RS256' };

const deps = (overrides: Partial<VerifierDeps> = {}): VerifierDeps => ({
  keys,
  settings,
  externalIssuers: [
    { issuer: COGNITO, audiences: ['client-1'] },
    { issuer: OIDC, audiences: ['app-1'] },
  ],
  externalKeySet: () => createLocalJWKSet({ keys: [cognitoJwk] }),
  now: () => now,
  ...overrides,
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nowSeconds = Math.floor(now.getTime() / 1000);
const ownPayload = { iss: settings.issuer, aud: settings.audience, sub: 'usr_1', tid: 'tnt_1', email: 'a@example.com', iat: nowSeconds, exp: nowSeconds + 600 };
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const sOf = (token: string) => BigInt(`0x${Buffer.from(token.split('.')[2]!, 'base64url').subarray(32).toString('hex')}`);
/** The same signature with s replaced by n − s: it verifies as ECDSA, under another spelling. */
function flipS(token: string): string {
  const [h, p, sig] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(sig, 'base64url');
  const flipped = Buffer.from((P256_ORDER - sOf(token)).toString(16).padStart(64, '0'), 'hex');
  return `${h}.${p}.${Buffer.concat([bytes.subarray(0, 32), flipped]).toString('base64url')}`;
}
/** A token of the service's shape signed by `key` with `header` (the own key by default), its ES256 signature in low-S form. */
async function signed(
  payload: object,
  header: Record<string, unknown> = { alg: 'ES256', kid: keys.kid },
  key: Parameters<SignJWT['sign']>[0] = keys.privateKey,
) {
  const token = await new SignJWT(payload as Record<string, unknown>).setProtectedHeader(header as never).sign(key);
  return header['alg'] === 'ES256' && sOf(token) > P256_ORDER / 2n ? flipS(token) : token;
}

async function expectRefused(token: string, d = deps()) {
  await expect(verifyAccessToken(token, d)).rejects.toBeInstanceOf(UnauthorizedError);
}

describe('own access tokens', () => {
  it('round-trip with ES256, kid, iss, aud, exp, sub, email', async () => {
    const { accessToken, expiresIn } = await issueAccessToken(claims, keys, settings, now);
    expect(expiresIn).toBe(3600);
    const [header, payload] = accessToken
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p!, 'base64url').toString()));
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

  it('are signed by jose with the kid jose computes (RFC 7638), and verify with jose against the published key', async () => {
    const { accessToken } = await issueAccessToken(claims, keys, settings, now);
    expect(keys.kid).toBe(await calculateJwkThumbprint(keys.publicJwk, 'sha256'));
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet({ keys: [keys.publicJwk] }), {
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: now,
    });
    expect(payload).toMatchObject({ sub: 'usr_1', tid: 'tnt_1' });
  });

  it('are always issued in low-S form, and the high-S twin of a valid signature is refused (ECDSA malleability)', async () => {
    for (let i = 0; i < 40; i++) {
      const { accessToken } = await issueAccessToken(claims, keys, settings, now);
      expect(sOf(accessToken) <= P256_ORDER / 2n).toBe(true);
      expect(await verifyAccessToken(accessToken, deps())).toMatchObject({ kind: 'own' });
      const twin = flipS(accessToken);
      // jose alone accepts the twin: it is a valid ECDSA signature of the same bytes.
      await expect(jwtVerify(twin, keys.publicKey, { currentDate: now })).resolves.toBeDefined();
      await expectRefused(twin);
    }
  });

  it('are refused when signed by a key the token carries (jwk header) or points at (jku header)', async () => {
    const attacker = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const attackerJwk = attacker.publicKey.export({ format: 'jwk' });
    await expectRefused(await signed(ownPayload, { alg: 'ES256', jwk: attackerJwk }, attacker.privateKey));
    await expectRefused(await signed(ownPayload, { alg: 'ES256', kid: keys.kid, jku: 'https://attacker.example.com/jwks.json' }, attacker.privateKey));
    await expectRefused(await signed(ownPayload, { alg: 'ES256', kid: keys.kid, jwk: keys.publicJwk }, attacker.privateKey));
  });

  it('are refused with an algorithm other than ES256, a key of another curve, or an unknown critical header', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(await signed(ownPayload, { alg: 'RS256', kid: keys.kid }, rsa.privateKey));
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    await expectRefused(await signed(ownPayload, { alg: 'ES384', kid: keys.kid }, p384.privateKey));
    // jose signs no unknown critical parameter: this one is signed by hand.
    const input = `${b64({ alg: 'ES256', kid: keys.kid, crit: ['x-unknown'], 'x-unknown': 1 })}.${b64(ownPayload)}`;
    const { sign } = await import('node:crypto');
    const critical = `${input}.${sign('sha256', Buffer.from(input), { key: keys.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    await expectRefused(sOf(critical) > P256_ORDER / 2n ? flipS(critical) : critical);
  });

  it('hold the claims: issuer, audience, subject, tenant, expiry, not-before', async () => {
    expect(await verifyAccessToken(await signed(ownPayload), deps())).toMatchObject({ kind: 'own', claims });
    expect(await verifyAccessToken(await signed({ ...ownPayload, aud: ['other', settings.audience] }), deps())).toMatchObject({ kind: 'own' });
    for (const change of [
      { aud: 'other' },
      { aud: undefined },
      { sub: undefined },
      { tid: undefined },
      { tid: 7 },
      { exp: nowSeconds },
      { exp: undefined },
      { exp: String(nowSeconds + 600) },
      { nbf: nowSeconds + 1 },
      { iat: 'yesterday' },
    ]) {
      await expectRefused(await signed({ ...ownPayload, ...change }));
    }
  });

  it('are refused when a part is spelt otherwise: padding, or unused bits of the last character', async () => {
    const { accessToken } = await issueAccessToken(claims, keys, settings, now);
    const [h, p, s] = accessToken.split('.') as [string, string, string];
    await expectRefused(`${h}.${p}.${s}=`);
    // A 64-byte signature leaves 4 bits of its last character unused: the same bytes, spelt otherwise.
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelt = s.slice(0, -1) + digits[digits.indexOf(s.at(-1)!) ^ 1];
    expect(Buffer.from(respelt, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    await expectRefused(`${h}.${p}.${respelt}`);
  });

  it('refuse every altered token as unauthorised and nothing else (2,000 seeded mutations)', async () => {
    const random = seededRandom(7638);
    const { accessToken: valid } = await issueAccessToken(claims, keys, settings, now);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ é\u0000';
    const mutations: ((token: string) => string)[] = [
      (t) => {
        const i = random.below(t.length);
        return t.slice(0, i) + random.pick([...alphabet]) + t.slice(i + 1);
      },
      (t) => t.slice(0, random.below(t.length)),
      (t) => {
        const i = random.below(t.length);
        return t.slice(0, i) + t.slice(i + 1 + random.below(4));
      },
      (t) => {
        const [h, p, s] = t.split('.');
        return random.pick([`${p}.${h}.${s}`, `${h}.${s}.${p}`, `${h}.${p}`, `${h}.${p}.${s}.${s}`, `${h}..${s}`]);
      },
      (t) => {
        const [, p, s] = t.split('.');
        return `${b64({ alg: random.pick(['ES256', 'RS256', 'HS256', 'none', 'ES384', '']), kid: keys.kid, ...(random.chance(0.3) ? { crit: ['x'] } : {}) })}.${p}.${s}`;
      },
    ];
    let refusedCount = 0;
    for (let i = 0; i < 2000; i++) {
      const token = random.pick(mutations)(valid);
      if (token === valid) continue;
      const outcome = await verifyAccessToken(token, deps()).then(
        () => 'accepted',
        (err: unknown) => err,
      );
      expect(outcome, token).toBeInstanceOf(UnauthorizedError);
      refusedCount++;
    }
    expect(refusedCount).toBeGreaterThan(1900);
  });
});

describe('external issuer tokens', () => {
  const externalToken = (issuer: string, payload: Record<string, unknown>, alg = 'RS256', key: Parameters<SignJWT['sign']>[0] = cognitoKeys.privateKey) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg, kid: 'cognito-1' })
      .setIssuer(issuer)
      .setSubject('cognito-sub-1')
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 600)
      .sign(key);
  const accessToken = (payload: Record<string, unknown> = {}) =>
    externalToken(COGNITO, { token_use: 'access', client_id: 'client-1', scope: 'openid', ...payload });

  it("accept a Cognito pool's access token for a configured app client (client_id), with its claims", async () => {
    const verified = await verifyAccessToken(await accessToken({ email: 'c@example.com' }), deps());
    expect(verified).toMatchObject({ kind: 'external', issuer: COGNITO, subject: 'cognito-sub-1', payload: { email: 'c@example.com' } });
  });

  it("refuse a Cognito pool's ID token where an access token is meant, even for a configured app client", async () => {
    await expectRefused(await externalToken(COGNITO, { token_use: 'id', aud: 'client-1', email: 'c@example.com' }));
    await expectRefused(await externalToken(COGNITO, { aud: 'client-1', client_id: 'client-1' }));
  });

  it('refuse a Cognito access token of another app client, or with the app client only in aud', async () => {
    await expectRefused(await accessToken({ client_id: 'client-2' }));
    await expectRefused(await accessToken({ client_id: undefined, aud: 'client-1' }));
  });

  it("accept another issuer's token for a configured audience (aud) only", async () => {
    expect(await verifyAccessToken(await externalToken(OIDC, { aud: 'app-1' }), deps())).toMatchObject({ kind: 'external', issuer: OIDC });
    expect(await verifyAccessToken(await externalToken(OIDC, { aud: ['other', 'app-1'] }), deps())).toMatchObject({ kind: 'external' });
    await expectRefused(await externalToken(OIDC, { aud: 'app-2' }));
    await expectRefused(await externalToken(OIDC, { client_id: 'app-1' }));
  });

  it('are refused from an unconfigured issuer, signed with an algorithm other than RS256, or by another key', async () => {
    await expectRefused(await accessToken(), deps({ externalIssuers: [] }));
    const ec = await generateKeyPair('ES256');
    await expectRefused(await externalToken(COGNITO, { token_use: 'access', client_id: 'client-1' }, 'ES256', ec.privateKey));
    const other = await generateKeyPair('RS256');
    await expectRefused(await externalToken(COGNITO, { token_use: 'access', client_id: 'client-1' }, 'RS256', other.privateKey));
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const smallJwk = { ...(small.publicKey.export({ format: 'jwk' }) as JWK), kid: 'cognito-1', alg: 'RS256' };
    const header = b64({ alg: 'RS256', kid: 'cognito-1' });
    const payload = b64({ iss: COGNITO, sub: 's', token_use: 'access', client_id: 'client-1', exp: nowSeconds + 600 });
    const { sign } = await import('node:crypto');
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), small.privateKey).toString('base64url');
    await expectRefused(`${header}.${payload}.${signature}`, deps({ externalKeySet: () => createLocalJWKSet({ keys: [smallJwk] }) }));
  });

  it('are refused when the key set holds the key with its private parts', async () => {
    const privateJwk = { ...(await exportJWK(cognitoKeys.privateKey)), kid: 'cognito-1', alg: 'RS256' };
    await expectRefused(await accessToken(), deps({ externalKeySet: () => createLocalJWKSet({ keys: [privateJwk] }) }));
  });

  it('tell Cognito issuers by their URL, and read keys over https (plain http only from this machine)', () => {
    expect(isCognitoIssuer(COGNITO)).toBe(true);
    expect(isCognitoIssuer('https://cognito-idp.cn-north-1.amazonaws.com.cn/cn-north-1_X')).toBe(true);
    expect(isCognitoIssuer('http://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X')).toBe(false);
    expect(isCognitoIssuer('https://cognito-idp.eu-west-1.amazonaws.com.attacker.example/x')).toBe(false);
    expect(isCognitoIssuer(OIDC)).toBe(false);
    expect(keysUrlOf({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X/' })).toBe(
      'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X/.well-known/jwks.json',
    );
    expect(keysUrlOf({ issuer: OIDC, jwksUrl: 'https://keys.example.com/jwks' })).toBe('https://keys.example.com/jwks');
    expect(isTrustedKeysUrl('https://idp.example.com/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://127.0.0.1:4000/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://localhost/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://idp.example.com/jwks')).toBe(false);
    expect(isTrustedKeysUrl('ftp://idp.example.com/jwks')).toBe(false);
    expect(isTrustedKeysUrl('not a url')).toBe(false);
  });

  it('name the provider from the identities claim', () => {
    expect(providerOf({ identities: [{ providerName: 'Google' }] })).toBe('google');
    expect(providerOf({ identities: [{ providerName: 'GitHub' }] })).toBe('github');
    expect(providerOf({})).toBe('local');
  });
});
