import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RemoteKeySetOptions, remoteKeySet } from '#shared/adapters/signing.ts';

// An issuer's JWKS on loopback, read through jose's createRemoteJWKSet with the service's fetch rules.
let server: Server;
let url: URL;
let fetches = 0;
let status = 200;
let published: JWK[] = [];
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
afterEach(() => {
  vi.useRealTimers();
  status = 200;
});

const T0 = new Date('2026-06-01T12:00:00Z').getTime();
/** jose and the key set read Date.now(): the clock is moved by hand, timers stay real. */
const at = (ms: number) => vi.setSystemTime(T0 + ms);
const startClock = () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  at(0);
};

const keyPair = async (kid: string) => {
  const pair = await generateKeyPair('RS256');
  return { ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' } };
};
const tokenOf = (pair: { privateKey: Parameters<SignJWT['sign']>[0] }, kid: string) =>
  new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'RS256', kid }).setIssuer('urn:idp').setExpirationTime('10m').sign(pair.privateKey);
const verify = async (token: string, keys: ReturnType<typeof remoteKeySet>) =>
  (await jwtVerify(token, keys, { issuer: 'urn:idp', algorithms: ['RS256'] })).payload;
const refusal = (token: string, keys: ReturnType<typeof remoteKeySet>) =>
  verify(token, keys).then(
    () => expect.fail('accepted'),
    (err: unknown) => String((err as Error).cause ?? (err as Error).message),
  );

describe('remote key set (jose createRemoteJWKSet, an issuer JWKS over HTTP)', () => {
  it('fetches once for many tokens, once at a time, and again when the set is old', async () => {
    startClock();
    const first = await keyPair('k1');
    published = [first.jwk];
    fetches = 0;
    const keys = remoteKeySet(url, { maxAgeMs: 60_000 });
    const token = await tokenOf(first, 'k1');
    expect(await Promise.all(Array.from({ length: 5 }, () => verify(token, keys)))).toHaveLength(5);
    expect(fetches).toBe(1);
    at(60_001);
    await verify(token, keys);
    expect(fetches).toBe(2);
  });

  it('refetches for a key it does not hold (a rotation), at most once per cooldown', async () => {
    startClock();
    const first = await keyPair('k1');
    const rotated = await keyPair('k2');
    published = [first.jwk];
    fetches = 0;
    const keys = remoteKeySet(url, { cooldownMs: 30_000 });
    await verify(await tokenOf(first, 'k1'), keys);
    published = [first.jwk, rotated.jwk];
    at(10_000);
    expect(await refusal(await tokenOf(rotated, 'k2'), keys)).toMatch(/no applicable key/);
    expect(fetches).toBe(1);
    at(30_001);
    expect(await verify(await tokenOf(rotated, 'k2'), keys)).toMatchObject({ sub: 'user-1' });
    expect(fetches).toBe(2);
  });

  it('refuses tokens when the JWKS answers an error or cannot be reached, and recovers after the cooldown', async () => {
    startClock();
    const pair = await keyPair('k1');
    published = [pair.jwk];
    status = 503;
    const keys = remoteKeySet(url, { cooldownMs: 30_000 });
    expect(await refusal(await tokenOf(pair, 'k1'), keys)).toMatch(/answered 503/);
    status = 200;
    at(30_001);
    expect(await verify(await tokenOf(pair, 'k1'), keys)).toMatchObject({ sub: 'user-1' });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = new URL(`http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`);
    await new Promise((resolve) => closed.close(resolve));
    expect(await refusal(await tokenOf(pair, 'k1'), remoteKeySet(gone))).toMatch(/fetch failed/);
  });

  it('asks a failing issuer once per cooldown, however many tokens with unknown key ids arrive', async () => {
    startClock();
    const pair = await keyPair('k1');
    status = 503;
    fetches = 0;
    const keys = remoteKeySet(url);
    for (let i = 0; i < 20; i++) await refusal(await tokenOf(pair, `random-${i}`), keys);
    expect(fetches).toBe(1);
  });

  it('serves the set last read while the issuer is down, until its grace runs out', async () => {
    startClock();
    const pair = await keyPair('k1');
    published = [pair.jwk];
    const keys = remoteKeySet(url, { maxAgeMs: 60_000, staleGraceMs: 120_000 });
    const token = await tokenOf(pair, 'k1');
    await verify(token, keys);
    status = 503;
    at(90_000);
    expect(await verify(token, keys)).toMatchObject({ sub: 'user-1' });
    at(181_000); // the stale set was trusted again for maxAgeMs at 90 s; past that and past the grace, nothing serves
    expect(await refusal(token, keys)).toMatch(/could not be read|answered 503/);
  });

  it('refuses a redirect, an answer other than 200, and an answer too large, without reading it all', async () => {
    const pair = await keyPair('k1');
    published = [pair.jwk];
    const base = `http://127.0.0.1:${url.port}`;
    const token = await tokenOf(pair, 'k1');
    const from = (path: string, over: Partial<RemoteKeySetOptions> = {}) => refusal(token, remoteKeySet(new URL(`${base}${path}`), over));
    expect(await from('/moved')).toMatch(/answered 302/);
    expect(await from('/huge')).toMatch(/too large/);
    expect(await from('/huge', { maxBytes: 400 * 1024 })).toMatch(/no applicable key/); // read, and holds no key
    status = 204;
    expect(await from('/.well-known/jwks.json')).toMatch(/answered 204/);
  });

  it('never uses a key published with its private parts', async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    published = [{ ...(await exportJWK(pair.privateKey)), kid: 'k1', alg: 'RS256' }];
    expect(await refusal(await tokenOf(pair, 'k1'), remoteKeySet(url))).toMatch(/must be public/);
  });
});
