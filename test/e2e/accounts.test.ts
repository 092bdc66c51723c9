import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '#shared/domain/accounts/jwt.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { startTestService } from '../support/service.ts';
import { startStandInPool } from '../support/stand-in-pool.ts';

type Service = Awaited<ReturnType<typeof startTestService>>;

let pool: Awaited<ReturnType<typeof startStandInPool>>;
let service: Service;
beforeAll(async () => {
  pool = await startStandInPool();
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000 }), JWT_EXTERNAL_ISSUERS: pool.issuers } });
});
afterAll(async () => {
  await service?.stop();
  pool?.close();
});

let seq = 0;
const newUser = () => ({
  email: `user${++seq}-${Date.now()}@example.com`,
  password: 'correct-horse-battery',
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Analytical Engines',
});

async function registered() {
  const body = newUser();
  const res = await service.api('POST', '/auth/register', { body });
  expect(res.status).toBe(201);
  return { ...body, token: res.body.data.accessToken as string, user: res.body.data.user };
}

const signing = () => signingMaterialFromSeed(process.env.SIGNING_SEED!);
const settings = () => ({ issuer: process.env.JWT_ISSUER ?? 'urn:aos:local', audience: 'aos-api', ttlSeconds: 3600 });

describe('registration and login', () => {
  it('registers, answers the user and a working token, and mails a verification link', async () => {
    const body = newUser();
    const res = await service.api('POST', '/auth/register', { body });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 3600,
      user: { email: body.email, firstName: 'Ada', lastName: 'Lovelace', name: 'Ada Lovelace', provider: 'local', isEmailVerified: false },
    });
    expect(res.body.data.user).not.toHaveProperty('passwordHash');
    expect(JSON.stringify(res.body)).not.toContain(body.password);
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();

    const mail = await service.waitForOutbox((m) => m.to === body.email && /verify/i.test(m.subject ?? ''), 10_000);
    const token = /token=([\w-]+)/.exec(mail.text)?.[1];
    expect(token).toBeTruthy();
    const verified = await service.api('GET', `/auth/verify-email?token=${token}`);
    expect(verified.status).toBe(200);
    const profile = await service.api('GET', '/users/profile', { token: res.body.data.accessToken });
    expect(profile.body.isEmailVerified).toBe(true);
    const again = await service.api('GET', `/auth/verify-email?token=${token}`);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a duplicate e-mail (any case) with 400 naming the field', async () => {
    const { email } = await registered();
    const res = await service.api('POST', '/auth/register', { body: { ...newUser(), email: email.toUpperCase() } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^email: /) });
  });

  it.each([
    ['an invalid e-mail', { email: 'not-an-email' }, /email/],
    ['a short password', { password: 'short' }, /password: must be at least 8/],
    ['a missing first name', { firstName: undefined }, /firstName: is required/],
    ['a number for a name', { lastName: 42 }, /lastName/],
  ])('refuses %s', async (_what, change, message) => {
    const res = await service.api('POST', '/auth/register', { body: { ...newUser(), ...change } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses malformed JSON and a missing body', async () => {
    const malformed = await service.api('POST', '/auth/register', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/Malformed JSON/);
    const empty = await service.api('POST', '/auth/login', { rawBody: '' });
    expect(empty.status).toBe(400);
  });

  it('logs in with the right password and answers the same 401 for a wrong password or unknown e-mail', async () => {
    const { email, password } = await registered();
    const res = await service.api('POST', '/auth/login', { body: { email, password } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, user: { email } });
    const { payload } = await jwtVerify(res.body.data.accessToken, createLocalJWKSet((await service.api('GET', '/.well-known/jwks.json')).body), {
      issuer: settings().issuer,
      audience: 'aos-api',
    });
    expect(payload).toMatchObject({ sub: res.body.data.user.id, email });

    const wrong = await service.api('POST', '/auth/login', { body: { email, password: 'wrong-password' } });
    const unknown = await service.api('POST', '/auth/login', { body: { email: `nobody-${email}`, password } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });
});

describe('password reset', () => {
  it('mails a single-use token; the new password works and the old one stops', async () => {
    const { email, password } = await registered();
    const res = await service.api('POST', '/auth/forgot-password', { body: { email } });
    expect(res.status).toBe(200);
    const mail = await service.waitForOutbox((m) => m.to === email && /reset/i.test(m.subject ?? ''), 10_000);
    const token = /token=([\w-]+)/.exec(mail.text)![1];

    const reset = await service.api('POST', '/auth/reset-password', { body: { token, password: 'a-brand-new-password' } });
    expect(reset.status).toBe(200);
    expect((await service.api('POST', '/auth/login', { body: { email, password } })).status).toBe(401);
    expect((await service.api('POST', '/auth/login', { body: { email, password: 'a-brand-new-password' } })).status).toBe(200);

    const reused = await service.api('POST', '/auth/reset-password', { body: { token, password: 'yet-another-password' } });
    expect(reused.status).toBe(400);
    expect(reused.body.error.message).toMatch(/token/);
  });

  it('answers an unknown e-mail exactly as a known one and sends nothing', async () => {
    const unknown = `ghost-${Date.now()}@example.com`;
    const res = await service.api('POST', '/auth/forgot-password', { body: { email: unknown } });
    expect(res.status).toBe(200);
    const { email } = await registered();
    const known = await service.api('POST', '/auth/forgot-password', { body: { email } });
    expect(known.body).toEqual(res.body);
    await service.waitForOutbox((m) => m.to === email && /reset/i.test(m.subject ?? ''), 10_000);
    expect((await service.readOutbox()).some((m) => m.to === unknown)).toBe(false);
  });

  it('refuses an invalid token', async () => {
    const res = await service.api('POST', '/auth/reset-password', { body: { token: 'made-up', password: 'whatever-password' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /users/profile', () => {
  it("answers exactly the spec's fields at top level", async () => {
    const { token, email } = await registered();
    const res = await service.api('GET', '/users/profile', { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'success',
        'id',
        'email',
        'firstName',
        'lastName',
        'name',
        'image',
        'company',
        'provider',
        'isActive',
        'isAdmin',
        'isEmailVerified',
        'createdAt',
        'updatedAt',
        'subscription',
        'resources',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      success: true,
      email,
      name: 'Ada Lovelace',
      image: null,
      company: 'Analytical Engines',
      provider: 'local',
      isActive: true,
      isAdmin: false,
      resources: { agentCount: 0, activeApiKeyCount: 0 },
    });
    expect(res.body.subscription).toMatchObject({
      plan: 'trial',
      planName: 'Free Trial',
      status: 'trialing',
      spansUsed: 0,
      spansLimit: 10000,
      usagePercentage: 0,
      cancelAtPeriodEnd: false,
      trialDaysRemaining: 14,
      trialExpired: false,
      features: {
        spans: 10000,
        agents: 10,
        retention: 14,
        alerts: true,
        evaluations: true,
        exports: true,
        deepSearch: false,
        semanticSearch: false,
        smartSearch: false,
        support: 'community',
        trialDays: 14,
      },
    });
    expect(Date.parse(res.body.subscription.trialEndDate) - Date.parse(res.body.createdAt)).toBe(14 * 86_400_000);
    expect(res.body.subscription.currentPeriodEnd).toBe(res.body.subscription.trialEndDate);
  });

  it('counts active API keys', async () => {
    const { token } = await registered();
    const a = await service.api('POST', '/keys', { token, body: { name: 'a' } });
    await service.api('POST', '/keys', { token, body: { name: 'b' } });
    await service.api('POST', `/keys/${a.body.data.id}/revoke`, { token });
    const res = await service.api('GET', '/users/profile', { token });
    expect(res.body.resources.activeApiKeyCount).toBe(1);
  });

  it('refuses missing, malformed, expired, unsigned, forged and re-signed tokens with 401', async () => {
    const { token, user } = await registered();
    const keys = await signing();
    const expired = (await issueAccessToken({ userId: user.id, tenantId: 't', email: user.email }, keys, settings(), new Date(Date.now() - 7200_000)))
      .accessToken;
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someone_else' })).toString('base64url')}.${s}`;
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JSON.stringify(keys.publicJwk)));
    for (const headers of [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${expired}` },
      { authorization: `Bearer ${none}` },
      { authorization: `Bearer ${tampered}` },
      { authorization: `Bearer ${hs256}` },
    ]) {
      const res = await service.api('GET', '/users/profile', { headers });
      expect(res.status, JSON.stringify(headers).slice(0, 40)).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
      expect(res.headers.get('x-ratelimit-remaining')).toBeTruthy();
    }
  });

  it('answers 404 when the user no longer exists', async () => {
    const keys = await signing();
    const { accessToken } = await issueAccessToken({ userId: 'usr_gone', tenantId: 'tnt_gone', email: 'gone@example.com' }, keys, settings(), new Date());
    const res = await service.api('GET', '/users/profile', { token: accessToken });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it("accepts a Cognito pool's access token and creates its user on first sight with the federated provider; refuses its ID token", async () => {
    const email = `fed-${Date.now()}@example.com`;
    // The profile claims a pool's pre-token-generation trigger adds to its access tokens.
    const profile = { email, email_verified: true, given_name: 'Grace', family_name: 'Hopper', identities: [{ providerName: 'Google' }] };
    const accessToken = () => pool.accessToken(profile);

    const first = await service.api('GET', '/users/profile', { token: await accessToken() });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ provider: 'google', firstName: 'Grace', name: 'Grace Hopper', isEmailVerified: true });
    const second = await service.api('GET', '/users/profile', { token: await accessToken() });
    expect(second.body.id).toBe(first.body.id);

    const idToken = await pool.token({ ...profile, token_use: 'id', aud: 'dashboard-client' });
    expect((await service.api('GET', '/users/profile', { token: idToken })).status).toBe(401);
    const wrongClient = await pool.token({ email: 'x@example.com', token_use: 'access', client_id: 'other-client' }, 'cognito-sub-43');
    expect((await service.api('GET', '/users/profile', { token: wrongClient })).status).toBe(401);
  });

  it('refuses an API key with 403: the profile takes a user token only', async () => {
    const { token } = await registered();
    const key = (await service.api('POST', '/keys', { token, body: { name: 'sdk' } })).body.data.key;
    const res = await service.api('GET', '/users/profile', { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});

describe('API keys', () => {
  it('shows the secret once, lists without it, rotates, revokes and deletes', async () => {
    const { token } = await registered();
    // Every key has full access: a field such as `scopes` would promise what it does not do, so it is refused.
    const scoped = await service.api('POST', '/keys', { token, body: { name: 'read only', scopes: ['read'] } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('scopes') });
    const created = await service.api('POST', '/keys', { token, body: { name: 'production SDK' } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    expect(key).toMatchObject({ name: 'production SDK', status: 'active', lastUsedAt: null });
    expect(key.key).toMatch(/^aos_live_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    expect(key.key.endsWith(key.lastFour)).toBe(true);

    // A valid key authenticates (403 on a user-only route), an unknown one does not (401).
    expect((await service.api('GET', '/keys', { apiKey: key.key })).status).toBe(403);

    const list = await service.api('GET', '/keys', { token });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total: 1, limit: 50, skip: 0, hasMore: false, nextCursor: null, totalExact: true });
    expect(list.body.data[0]).toMatchObject({ id: key.id, name: 'production SDK', prefix: key.prefix, lastFour: key.lastFour, status: 'active' });
    expect(list.body.data[0].lastUsedAt).not.toBeNull();
    expect(JSON.stringify(list.body)).not.toContain(key.key.slice(26, 50));
    expect(list.body.data[0]).not.toHaveProperty('key');
    expect(list.body.data[0]).not.toHaveProperty('secretHash');

    const refreshed = await service.api('PUT', `/keys/${key.id}/refresh`, { token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.id).toBe(key.id);
    expect(refreshed.body.data.key).not.toBe(key.key);
    expect((await service.api('GET', '/keys', { apiKey: key.key })).status).toBe(401);
    expect((await service.api('GET', '/keys', { apiKey: refreshed.body.data.key })).status).toBe(403);

    const revoked = await service.api('POST', `/keys/${key.id}/revoke`, { token });
    expect(revoked.body.data.status).toBe('revoked');
    // When it was revoked (it stayed null), kept by a second revoke, which changes nothing.
    expect(Date.parse(revoked.body.data.revokedAt)).toBeGreaterThanOrEqual(Date.parse(refreshed.body.data.rotatedAt));
    expect((await service.api('POST', `/keys/${key.id}/revoke`, { token })).body.data).toEqual(revoked.body.data);
    const afterRevoke = await service.api('GET', '/keys', { apiKey: refreshed.body.data.key });
    expect(afterRevoke.status).toBe(401);
    expect((await service.api('PUT', `/keys/${key.id}/refresh`, { token })).status).toBe(400);

    expect((await service.api('DELETE', `/keys/${key.id}`, { token })).status).toBe(200);
    expect((await service.api('DELETE', `/keys/${key.id}`, { token })).status).toBe(404);
    expect((await service.api('GET', '/keys', { token })).body.data).toEqual([]);
  });

  it("answers 404 for another tenant's key id, exactly as for a missing one, and changes nothing", async () => {
    const owner = await registered();
    const other = await registered();
    const key = (await service.api('POST', '/keys', { token: owner.token, body: { name: 'mine' } })).body.data;
    const missing = await service.api('POST', '/keys/doesNotExist0000/revoke', { token: other.token });
    for (const [method, path] of [
      ['PUT', `/keys/${key.id}/refresh`],
      ['POST', `/keys/${key.id}/revoke`],
      ['DELETE', `/keys/${key.id}`],
    ] as const) {
      const res = await service.api(method, path, { token: other.token });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    expect((await service.api('GET', '/keys', { token: other.token })).body.data).toEqual([]);
    expect((await service.api('GET', '/keys', { apiKey: key.key })).status).toBe(403);
  });

  it('validates the body and the pagination', async () => {
    const { token } = await registered();
    expect((await service.api('POST', '/keys', { token, body: {} })).body.error.message).toMatch(/name: is required/);
    expect((await service.api('POST', '/keys', { token, body: { name: 'x'.repeat(101) } })).status).toBe(400);
    const bad = await service.api('GET', '/keys?limit=500', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/limit/);
    expect((await service.api('GET', '/keys?skip=-3', { token })).body.error.message).toMatch(/skip/);
  });

  it('rate-limits the Strict tier at 20 requests a minute per credential, with Retry-After', async () => {
    const { token } = await registered();
    // Stay inside one fixed one-minute window.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    if (secondsLeft < 10) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 200));
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await service.api('GET', '/keys', { token })).status);
    expect(statuses).toEqual(Array(20).fill(200));
    const limited = await service.api('GET', '/keys', { token });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    // Another credential has its own budget.
    const other = await registered();
    expect((await service.api('GET', '/keys', { token: other.token })).status).toBe(200);
  });
});

describe('public system routes', () => {
  it('health, JWKS and the OpenAPI document', async () => {
    expect((await service.api('GET', '/health')).body).toEqual({ success: true, data: { status: 'ok' } });
    const jwks = await service.api('GET', '/.well-known/jwks.json');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
    const openapi = await service.api('GET', '/openapi.json');
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(openapi.body.paths['/auth/register'].post.requestBody).toBeDefined();
  });

  it('offers no hosted sign-in when no issuer has one (the pool here only has its tokens accepted)', async () => {
    expect((await service.api('GET', '/auth/hosted-sign-in')).body).toEqual({ success: true, data: { providers: [] } });
  });

  it('answers an unknown route with the 404 envelope and rate-limit headers', async () => {
    const res = await service.api('GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect((await service.api('DELETE', '/health')).status).toBe(404);
  });
});
