import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000 }) } });
});
afterAll(() => service?.stop());

let seq = 0;
const credentials = () => ({ email: `browser${++seq}-${Date.now()}@example.com`, password: 'correct-horse-battery' });

/** The refresh cookie a response sets: its value and its attributes, lower-cased. */
function setCookie(headers: Headers) {
  const line = headers.getSetCookie().find((c) => c.startsWith('aos_refresh='));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((part) => part.trim());
  return { value: pair!.slice('aos_refresh='.length), attributes: attributes.map((a) => a.toLowerCase()) };
}

const withCookie = (token: string | undefined) => ({ headers: { cookie: token === undefined ? undefined : `other=1; aos_refresh=${token}` } });

async function signIn() {
  const user = credentials();
  await service.api('POST', '/auth/register', { body: { ...user, firstName: 'Ada', lastName: 'Lovelace' } });
  const res = await service.api('POST', '/auth/login', { body: user });
  expect(res.status).toBe(200);
  return setCookie(res.headers)!.value;
}

describe('refresh-token cookie', () => {
  it('is set by register and login: HttpOnly, Secure, SameSite=Strict, scoped to the auth path', async () => {
    const user = credentials();
    const registered = await service.api('POST', '/auth/register', { body: { ...user, firstName: 'Ada', lastName: 'Lovelace' } });
    const loggedIn = await service.api('POST', '/auth/login', { body: user });
    for (const res of [registered, loggedIn]) {
      const cookie = setCookie(res.headers)!;
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookie.attributes).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite=strict', 'path=/api/auth']));
      // The token's remaining life in whole seconds: a second boundary may pass between issuing and answering.
      const maxAge = Number(cookie.attributes.find((a) => a.startsWith('max-age='))?.slice('max-age='.length));
      expect(maxAge).toBeGreaterThanOrEqual(86_399);
      expect(maxAge).toBeLessThanOrEqual(86_400);
    }
  });

  it('buys an access token and the next refresh token, once', async () => {
    const first = await signIn();
    const res = await service.api('POST', '/auth/refresh', withCookie(first));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, user: { email: expect.stringContaining('@example.com') } });
    const next = setCookie(res.headers)!.value;
    expect(next).not.toBe(first);
    const profile = await service.api('GET', '/users/profile', { headers: { authorization: `Bearer ${res.body.data.accessToken}` } });
    expect(profile.status).toBe(200);
    const again = await service.api('POST', '/auth/refresh', withCookie(next));
    expect(again.status).toBe(200);
  });

  it('revokes the whole sign-in when a token is used twice, and drops the cookie', async () => {
    const stolen = await signIn();
    const userRefresh = await service.api('POST', '/auth/refresh', withCookie(stolen));
    const usersToken = setCookie(userRefresh.headers)!.value;
    const replay = await service.api('POST', '/auth/refresh', withCookie(stolen));
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(setCookie(replay.headers)).toEqual({ value: '', attributes: expect.arrayContaining(['max-age=0']) });
    // The newer token of the same sign-in stops working too: the family is revoked.
    expect((await service.api('POST', '/auth/refresh', withCookie(usersToken))).status).toBe(401);
    // Another sign-in of the same user is untouched.
    const other = await signIn();
    expect((await service.api('POST', '/auth/refresh', withCookie(other))).status).toBe(200);
  });

  it('answers 401 without a cookie or with an unknown one', async () => {
    for (const token of [undefined, 'not-a-token', '']) {
      const res = await service.api('POST', '/auth/refresh', withCookie(token));
      expect(res.status, String(token)).toBe(401);
    }
  });

  it('logout ends the sign-in and deletes the cookie', async () => {
    const token = await signIn();
    const res = await service.api('POST', '/auth/logout', withCookie(token));
    expect(res.status).toBe(200);
    expect(setCookie(res.headers)?.attributes).toContain('max-age=0');
    expect((await service.api('POST', '/auth/refresh', withCookie(token))).status).toBe(401);
    expect((await service.api('POST', '/auth/logout', withCookie(undefined))).status).toBe(200);
  });
});
