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

describe('a password reset', () => {
  /** The tokens of the reset e-mails sent to `email`, once there are `count` of them. */
  async function resetTokens(email: string, count: number): Promise<string[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const mails = (await service.readOutbox()).filter((m) => m.to === email && /reset/i.test(m.subject ?? ''));
      if (mails.length >= count) return mails.map((m) => /token=([\w-]+)/.exec(m.text)![1]!);
      if (Date.now() > deadline) throw new Error(`${mails.length} of ${count} reset e-mails to ${email} in 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('ends the sign-ins made before it, and the other reset links sent before it (both went on working)', async () => {
    const user = credentials();
    await service.api('POST', '/auth/register', { body: { ...user, firstName: 'Ada', lastName: 'Lovelace' } });
    const before = setCookie((await service.api('POST', '/auth/login', { body: user })).headers)!.value;
    for (let i = 0; i < 2; i++) expect((await service.api('POST', '/auth/forgot-password', { body: { email: user.email } })).status).toBe(200);
    const [used, other] = await resetTokens(user.email, 2);

    expect((await service.api('POST', '/auth/reset-password', { body: { token: used, password: 'a-brand-new-password' } })).status).toBe(200);
    expect((await service.api('POST', '/auth/refresh', withCookie(before))).status).toBe(401);
    const again = await service.api('POST', '/auth/reset-password', { body: { token: other, password: 'yet-another-password' } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/token/);

    // What follows the reset works: a sign-in with the new password, and a link asked for after it.
    const after = await service.api('POST', '/auth/login', { body: { ...user, password: 'a-brand-new-password' } });
    expect((await service.api('POST', '/auth/refresh', withCookie(setCookie(after.headers)!.value))).status).toBe(200);
    expect((await service.api('POST', '/auth/forgot-password', { body: { email: user.email } })).status).toBe(200);
    const [, , later] = await resetTokens(user.email, 3);
    expect((await service.api('POST', '/auth/reset-password', { body: { token: later, password: 'a-third-password-now' } })).status).toBe(200);
  });
});
