import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, calculateJwkThumbprint, exportJWK, importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../support/random.ts';
import { remoteKeySet } from '../../../shared/adapters/signing.ts';
import {
  decodeJwtPayload,
  ecThumbprint,
  InvalidJwtError,
  isTrustedKeysUrl,
  keySetOf,
  keysUrlOf,
  signJwt,
  singleKey,
  verifyJwt,
  type Jwk,
  type JwsAlgorithm,
  type VerifyOptions,
} from '../../../shared/domain/accounts/jws.ts';

// jose is the independent implementation the service's own JWS code is checked against.
const now = new Date('2026-06-01T12:00:00Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const claims = { iss: 'urn:issuer', aud: 'api', sub: 'usr_1', iat: nowSeconds, exp: nowSeconds + 600 };
const options = (over: Partial<VerifyOptions> = {}): VerifyOptions => ({
  algorithms: ['ES256'],
  issuer: 'urn:issuer',
  audience: 'api',
  requiredClaims: ['sub', 'exp'],
  now,
  ...over,
});
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

const refused = (token: string, key: KeyObject = ec.publicKey, over: Partial<VerifyOptions> = {}) =>
  expect(verifyJwt(token, singleKey(key), options(over))).rejects.toBeInstanceOf(InvalidJwtError);

describe('JWS tokens over node:crypto', () => {
  it('ES256 tokens it signs verify with jose, and jose-signed ES256 and RS256 tokens verify with it', async () => {
    const own = signJwt({ alg: 'ES256', kid: 'k1', typ: 'JWT' }, claims, ec.privateKey);
    const { payload, protectedHeader } = await jwtVerify(own, ec.publicKey, { issuer: 'urn:issuer', audience: 'api', currentDate: now });
    expect(payload).toEqual(claims);
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: 'k1', typ: 'JWT' });

    const joseEs = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
    expect(await verifyJwt(joseEs, singleKey(ec.publicKey), options())).toEqual(claims);
    const joseRs = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    expect(await verifyJwt(joseRs, singleKey(rsa.publicKey), options({ algorithms: ['RS256'] }))).toEqual(claims);
  });

  it('computes the RFC 7638 thumbprint jose computes', async () => {
    const jwk = ec.publicKey.export({ format: 'jwk' }) as { crv: string; x: string; y: string };
    expect(ecThumbprint(jwk)).toBe(await calculateJwkThumbprint({ kty: 'EC', ...jwk }, 'sha256'));
  });

  it('refuses alg none, HS256 with the public key, an algorithm not asked for, and a key of the wrong type', async () => {
    await refused(`${b64({ alg: 'none' })}.${b64(claims)}.`);
    const publicJwk = JSON.stringify(ec.publicKey.export({ format: 'jwk' }));
    await refused(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(publicJwk)));
    const rs = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    await refused(rs, rsa.publicKey); // RS256 is not among the algorithms asked for
    await refused(signJwt({ alg: 'ES256' }, claims, ec.privateKey), rsa.publicKey, { algorithms: ['ES256', 'RS256'] });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    await refused(await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey), p384.publicKey);
    expect(() => signJwt({ alg: 'ES256' }, claims, rsa.privateKey)).toThrow();
  });

  it('refuses a small RSA key, and a critical header parameter it does not know', async () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const header = b64({ alg: 'RS256' });
    const { sign } = await import('node:crypto');
    const signature = sign('sha256', Buffer.from(`${header}.${b64(claims)}`), small.privateKey).toString('base64url');
    await refused(`${header}.${b64(claims)}.${signature}`, small.publicKey, { algorithms: ['RS256'] });
    await refused(signJwt({ alg: 'ES256', crit: ['exp'] }, claims, ec.privateKey));
  });

  it('refuses tampered payloads and signatures, and garbage of every shape', async () => {
    const [h, p, s] = signJwt({ alg: 'ES256' }, claims, ec.privateKey).split('.') as [string, string, string];
    await refused(`${h}.${b64({ ...claims, sub: 'usr_2' })}.${s}`);
    await refused(`${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`);
    await refused(`${h}.${p}.${s}=`);
    // A 64-byte signature leaves 4 bits of its last character unused: the same bytes, spelt otherwise.
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelt = s.slice(0, -1) + digits[digits.indexOf(s.at(-1)!) ^ 1];
    expect(Buffer.from(respelt, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    await refused(`${h}.${p}.${respelt}`);
    for (const garbage of ['', 'a', 'a.b', 'a.b.c', 'a.b.c.d', `${b64([1])}.${p}.${s}`, `${h}.${b64(['x'])}.${s}`, `${h}.bnVsbA.${s}`, `${h}.${p}+.${s}`]) {
      await refused(garbage);
    }
    expect(() => decodeJwtPayload('x.y')).toThrow(InvalidJwtError);
  });

  it('holds the claims: issuer, audience (string or list), required claims, exp, nbf and iat', async () => {
    const token = (payload: object) => signJwt({ alg: 'ES256' }, payload as Record<string, unknown>, ec.privateKey);
    const accepted = async (payload: object, over: Partial<VerifyOptions> = {}) =>
      expect(await verifyJwt(token(payload), singleKey(ec.publicKey), options(over))).toEqual(payload);

    await accepted({ ...claims, aud: ['other', 'api'] });
    await accepted({ ...claims, aud: 'anything' }, { audience: undefined });
    await accepted({ ...claims, exp: nowSeconds + 1, nbf: nowSeconds });
    await refused(token({ ...claims, iss: 'urn:other' }));
    await refused(token({ ...claims, aud: ['other'] }));
    await refused(token({ ...claims, aud: undefined }));
    await refused(token({ ...claims, sub: undefined }));
    await refused(token({ ...claims, exp: nowSeconds })); // expires at that second
    await refused(token({ ...claims, exp: String(nowSeconds + 600) }));
    await refused(token({ ...claims, nbf: nowSeconds + 1 }));
    await refused(token({ ...claims, iat: 'yesterday' }));
    await refused(token({ ...claims, exp: undefined }));
  });
});

describe('JWS tokens, mutated', () => {
  it('refuses every altered token with InvalidJwtError and nothing else (2,000 seeded mutations)', async () => {
    const random = seededRandom(7638);
    const valid = signJwt({ alg: 'ES256', kid: 'k1', typ: 'JWT' }, claims, ec.privateKey);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ é\u0000';
    const mutations: ((token: string) => string)[] = [
      (t) => { const i = random.below(t.length); return t.slice(0, i) + random.pick([...alphabet]) + t.slice(i + 1); },
      (t) => t.slice(0, random.below(t.length)),
      (t) => { const i = random.below(t.length); return t.slice(0, i) + t.slice(i + 1 + random.below(4)); },
      (t) => { const [h, p, s] = t.split('.'); return random.pick([`${p}.${h}.${s}`, `${h}.${s}.${p}`, `${h}.${p}`, `${h}.${p}.${s}.${s}`, `${h}..${s}`]); },
      (t) => { const [, p, s] = t.split('.'); return `${b64({ alg: random.pick(['ES256', 'RS256', 'HS256', 'none', 'ES384', '']), kid: 'k1', ...(random.chance(0.3) ? { crit: ['x'] } : {}) })}.${p}.${s}`; },
    ];
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      const token = random.pick(mutations)(valid);
      if (token === valid) continue;
      const outcome = await verifyJwt(token, singleKey(ec.publicKey), options()).then(
        (payload) => ({ accepted: payload }),
        (err: unknown) => ({ err }),
      );
      if ('accepted' in outcome) {
        // Only a change the signature does not cover may pass: none exists, so nothing passes.
        expect.fail(`a mutated token was accepted: ${token}`);
      }
      expect(outcome.err, token).toBeInstanceOf(InvalidJwtError);
      refused++;
    }
    expect(refused).toBeGreaterThan(1900);
  });
});

describe('JWKS key selection', () => {
  const rsaJwk = { ...(rsa.publicKey.export({ format: 'jwk' }) as Jwk), kid: 'r1' };
  const ecJwk = { ...(ec.publicKey.export({ format: 'jwk' }) as Jwk), kid: 'e1' };
  const select = (keys: unknown[], alg: JwsAlgorithm, kid?: string) => keySetOf({ keys })({ alg, ...(kid ? { kid } : {}) });

  it("picks by kid and by the algorithm's key type, and honours alg, use and key_ops", () => {
    expect(select([rsaJwk, ecJwk], 'RS256', 'r1')).toHaveLength(1);
    expect(select([rsaJwk, ecJwk], 'RS256', 'e1')).toEqual([]);
    expect(select([rsaJwk, ecJwk], 'ES256')).toHaveLength(1);
    expect(select([rsaJwk, { ...rsaJwk, kid: 'r2' }], 'RS256')).toHaveLength(2);
    expect(select([{ ...rsaJwk, alg: 'RS512' }], 'RS256')).toEqual([]);
    expect(select([{ ...rsaJwk, use: 'enc' }], 'RS256')).toEqual([]);
    expect(select([{ ...rsaJwk, key_ops: ['encrypt'] }], 'RS256')).toEqual([]);
    expect(select([{ ...rsaJwk, key_ops: ['verify'], use: 'sig', alg: 'RS256' }], 'RS256')).toHaveLength(1);
    expect(select([rsaJwk], 'HS256' as JwsAlgorithm)).toEqual([]);
  });

  it('never uses a key published with its private parts', () => {
    const privateJwk = { ...(rsa.privateKey.export({ format: 'jwk' }) as Jwk), kid: 'r1' };
    expect(select([privateJwk], 'RS256', 'r1')).toEqual([]);
    const secret: Jwk = { kty: 'oct', k: 'c2VjcmV0', kid: 'h1' };
    expect(select([secret, rsaJwk], 'RS256')).toHaveLength(1);
  });

  it('skips keys it cannot import and refuses a document without a keys list', () => {
    expect(select([{ kty: 'RSA', kid: 'r1', n: 'AQAB' }, null, 'x', [], rsaJwk], 'RS256', 'r1')).toHaveLength(1);
    expect(() => keySetOf({})).toThrow(InvalidJwtError);
    expect(() => keySetOf(null)).toThrow(InvalidJwtError);
  });

  it('a key set holding several candidates accepts the token any of them signed', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keys = [{ ...(other.publicKey.export({ format: 'jwk' }) as Jwk) }, { ...rsaJwk, kid: undefined }];
    const token = signJwt({ alg: 'RS256' } as never, claims, rsa.privateKey);
    expect(await verifyJwt(token, async (h) => keySetOf({ keys })(h), options({ algorithms: ['RS256'] }))).toEqual(claims);
    // and jose reads the same JWK the same way
    const { payload } = await jwtVerify(token, await importJWK(await exportJWK(rsa.publicKey), 'RS256'), { currentDate: now });
    expect(payload).toEqual(claims);
  });
});

describe('remote key set (an issuer JWKS over HTTP)', () => {
  let server: Server;
  let url: URL;
  let fetches = 0;
  let status = 200;
  let published: Jwk[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      fetches++;
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/.well-known/jwks.json' });
        res.end();
        return;
      }
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
        res.write(`{"keys":[],"padding":"${'x'.repeat(300 * 1024)}`);
        res.end('"}');
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 204 ? undefined : JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`);
  });
  afterAll(() => server?.close());

  const keyPair = (kid: string) => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...pair, jwk: { ...(pair.publicKey.export({ format: 'jwk' }) as Jwk), kid, alg: 'RS256', use: 'sig' } };
  };
  const rsOptions = options({ algorithms: ['RS256'] });
  const tokenOf = (pair: { privateKey: KeyObject }, kid: string) => signJwt({ alg: 'RS256', kid } as never, claims, pair.privateKey);

  it('fetches once for many tokens, once at a time, and again when the set is old', async () => {
    const first = keyPair('k1');
    published = [first.jwk];
    fetches = 0;
    let clock = 0;
    const keys = remoteKeySet(url, { now: () => clock, maxAgeMs: 60_000 });
    const verified = await Promise.all(Array.from({ length: 5 }, () => verifyJwt(tokenOf(first, 'k1'), keys, rsOptions)));
    expect(verified).toHaveLength(5);
    expect(fetches).toBe(1);
    clock = 60_000;
    await verifyJwt(tokenOf(first, 'k1'), keys, rsOptions);
    expect(fetches).toBe(2);
  });

  it('refetches for a key it does not hold (a rotation), at most once per cooldown', async () => {
    const first = keyPair('k1');
    const rotated = keyPair('k2');
    published = [first.jwk];
    fetches = 0;
    let clock = 0;
    const keys = remoteKeySet(url, { now: () => clock, cooldownMs: 30_000 });
    await verifyJwt(tokenOf(first, 'k1'), keys, rsOptions);
    published = [first.jwk, rotated.jwk];
    clock = 10_000;
    await expect(verifyJwt(tokenOf(rotated, 'k2'), keys, rsOptions)).rejects.toBeInstanceOf(InvalidJwtError);
    expect(fetches).toBe(1);
    clock = 30_000;
    expect(await verifyJwt(tokenOf(rotated, 'k2'), keys, rsOptions)).toEqual(claims);
    expect(fetches).toBe(2);
  });

  it('refuses tokens as unverifiable when the JWKS answers an error or cannot be reached, and recovers after the cooldown', async () => {
    const pair = keyPair('k1');
    published = [pair.jwk];
    status = 503;
    let clock = 0;
    const keys = remoteKeySet(url, { now: () => clock, cooldownMs: 30_000 });
    await expect(verifyJwt(tokenOf(pair, 'k1'), keys, rsOptions)).rejects.toBeInstanceOf(InvalidJwtError);
    status = 200;
    clock = 30_000;
    expect(await verifyJwt(tokenOf(pair, 'k1'), keys, rsOptions)).toEqual(claims);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = new URL(`http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`);
    await new Promise((resolve) => closed.close(resolve));
    await expect(verifyJwt(tokenOf(pair, 'k1'), remoteKeySet(gone), rsOptions)).rejects.toBeInstanceOf(InvalidJwtError);
  });

  it('a failing issuer is asked once per cooldown, however many tokens with unknown key ids arrive', async () => {
    const pair = keyPair('k1');
    status = 503;
    fetches = 0;
    const keys = remoteKeySet(url, { now: () => 0 });
    for (let i = 0; i < 20; i++) await expect(verifyJwt(tokenOf(pair, `random-${i}`), keys, rsOptions)).rejects.toBeInstanceOf(InvalidJwtError);
    expect(fetches).toBe(1);
    status = 200;
  });

  it('serves a set past its age while the issuer is down, until the grace runs out', async () => {
    const pair = keyPair('k1');
    published = [pair.jwk];
    status = 200;
    let clock = 0;
    const keys = remoteKeySet(url, { now: () => clock, maxAgeMs: 60_000, staleGraceMs: 120_000 });
    await verifyJwt(tokenOf(pair, 'k1'), keys, rsOptions);
    status = 503;
    clock = 90_000;
    expect(await verifyJwt(tokenOf(pair, 'k1'), keys, rsOptions)).toEqual(claims);
    clock = 180_000;
    await expect(verifyJwt(tokenOf(pair, 'k1'), keys, rsOptions)).rejects.toBeInstanceOf(InvalidJwtError);
    status = 200;
  });

  it('refuses a redirect, an answer other than 200, and an answer too large, without reading it all', async () => {
    const pair = keyPair('k1');
    published = [pair.jwk];
    const base = `http://127.0.0.1:${url.port}`;
    const refusal = (source: URL, over: Partial<Parameters<typeof remoteKeySet>[1]> = {}) =>
      verifyJwt(tokenOf(pair, 'k1'), remoteKeySet(source, over), rsOptions).then(
        () => expect.fail('accepted'),
        (err: unknown) => {
          expect(err).toBeInstanceOf(InvalidJwtError);
          return String((err as Error).cause ?? (err as Error).message);
        },
      );
    expect(await refusal(new URL(`${base}/moved`))).toMatch(/fetch failed/);
    expect(await refusal(new URL(`${base}/huge`))).toMatch(/too large/);
    expect(await refusal(new URL(`${base}/huge`), { maxBytes: 400 * 1024 })).toMatch(/signature verification failed/); // read, and holds no key
    status = 204;
    expect(await refusal(url)).toMatch(/answered 204/);
    status = 200;
  });

  it('reads keys over https, or plain http only from this machine', () => {
    expect(keysUrlOf({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X/' })).toBe('https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X/.well-known/jwks.json');
    expect(keysUrlOf({ issuer: 'https://idp.example.com', jwksUrl: 'https://keys.example.com/jwks' })).toBe('https://keys.example.com/jwks');
    expect(isTrustedKeysUrl('https://idp.example.com/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://127.0.0.1:4000/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://localhost/jwks')).toBe(true);
    expect(isTrustedKeysUrl('http://idp.example.com/jwks')).toBe(false);
    expect(isTrustedKeysUrl('ftp://idp.example.com/jwks')).toBe(false);
    expect(isTrustedKeysUrl('not a url')).toBe(false);
  });
});
