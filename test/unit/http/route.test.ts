import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { issueApiKey, newApiKeyId } from '#shared/domain/accounts/api-keys.ts';
import { issueAccessToken } from '#shared/domain/accounts/jwt.ts';
import type { ApiKeyRecord } from '#shared/domain/accounts/ports.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import type { PageInput } from '#shared/domain/paging/page.ts';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#shared/http/client-address.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute, type RoutePorts } from '#shared/http/route.ts';
import { agentsRoutes } from '#shared/schemas/routes/agents.ts';
import { authRoutes } from '#shared/schemas/routes/auth.ts';
import { keysRoutes } from '#shared/schemas/routes/keys.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';
import { httpEvent, lambdaContext } from '../../support/http-event.ts';

const signing = await signingMaterialFromSeed(process.env.SIGNING_SEED!);
const ORIGIN_SECRET = 'the-distributions-origin-secret-0123456789';

/** Plain fakes for the ports the HTTP stack touches. */
function fakePorts(keys: ApiKeyRecord[] = []) {
  const hits = new Map<string, number>();
  const ports = {
    clock: { now: () => new Date('2026-05-01T10:00:30Z') },
    signing: async () => signing,
    originSecret: async () => [ORIGIN_SECRET],
    store: {
      rateLimits: {
        hit: async (credential: string, tier: string, windowStart: number) => {
          const k = `${credential}|${tier}|${windowStart}`;
          hits.set(k, (hits.get(k) ?? 0) + 1);
          return hits.get(k)!;
        },
      },
      apiKeys: {
        get: async (id: string) => keys.find((k) => k.id === id),
        touchLastUsed: async () => {},
      },
    },
  } as unknown as RoutePorts;
  return { ports, hits };
}

async function call(handler: ReturnType<typeof httpRoute>, event = httpEvent('GET', '/api/health')) {
  const result = (await handler(event, lambdaContext)) as APIGatewayProxyStructuredResultV2;
  return { ...result, json: JSON.parse(result.body ?? 'null') };
}

function storedKey(tenantId: string) {
  const issued = issueApiKey(newApiKeyId(), signing.apiKeyPepper);
  const record: ApiKeyRecord = {
    id: issued.keyId,
    tenantId,
    createdBy: 'usr_1',
    name: 'k',
    prefix: 'aos_live_x',
    lastFour: issued.lastFour,
    secretHash: issued.secretHash,
    status: 'active',
    createdAt: '',
    updatedAt: '',
    lastUsedAt: null,
    rotatedAt: null,
    revokedAt: null,
  };
  return { record, key: issued.key };
}

describe('the HTTP stack', () => {
  it('wraps data in the success envelope with request id and rate-limit headers', async () => {
    const { ports } = fakePorts();
    const res = await call(
      httpRoute(
        'system/health',
        systemRoutes,
        () => ports,
        async () => ok({ status: 'ok' }),
      ),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ success: true, data: { status: 'ok' } });
    expect(res.headers).toMatchObject({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '99',
      'X-RateLimit-Reset': String(Date.parse('2026-05-01T10:01:00Z') / 1000),
    });
    expect(res.headers?.['X-Request-Id']).toMatch(/^req-/);
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const { ports } = fakePorts();
    const handler = httpRoute(
      'auth/login',
      authRoutes,
      () => ports,
      async () => ok(null),
    );
    const res = await call(handler, httpEvent('POST', '/api/auth/login', { body: '{"email": "a@b.c",' }));
    expect(res.statusCode).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.message).toMatch(/Malformed JSON/);
  });

  it('names each invalid field', async () => {
    const { ports } = fakePorts();
    const handler = httpRoute(
      'auth/register',
      authRoutes,
      () => ports,
      async () => ok(null),
    );
    const res = await call(handler, httpEvent('POST', '/api/auth/register', { body: JSON.stringify({ email: 'nope', password: 'short', firstName: 'A' }) }));
    expect(res.statusCode).toBe(400);
    expect(res.json.error.message).toMatch(/email: /);
    expect(res.json.error.message).toMatch(/password: must be at least 8 characters/);
    expect(res.json.error.message).toMatch(/lastName: is required/);
  });

  it('validates pagination (limit 1–100, skip 0–10000, defaults 50/0) and continues a list only with its own cursor', async () => {
    const { ports } = fakePorts();
    const seen: PageInput[] = [];
    const handler = listRoute(
      'keys/list',
      keysRoutes,
      () => ports,
      async (_request, page) => {
        seen.push(page);
        return { items: [{ id: 'k1' }], total: 3, totalExact: true, hasMore: true, next: 'position-1' };
      },
    );
    const tokenOf = async (tenantId: string) =>
      (
        await issueAccessToken(
          { userId: 'usr_1', tenantId, email: 'a@b.c' },
          signing,
          { issuer: 'urn:aos:local', audience: 'aos-api', ttlSeconds: 60 },
          new Date(),
        )
      ).accessToken;
    const auth = { authorization: `Bearer ${await tokenOf('tnt_1')}` };
    const get = (query: Record<string, string>, headers = auth) => call(handler, httpEvent('GET', '/api/keys', { headers, query }));
    for (const [limit, expected] of [
      ['0', 400],
      ['101', 400],
      ['abc', 400],
      ['-1', 400],
      ['100', 200],
    ] as const) {
      const res = await get({ limit });
      expect(res.statusCode, `limit=${limit}`).toBe(expected);
      if (expected === 400) expect(res.json.error.message).toMatch(/limit/);
    }
    const tooDeep = await get({ skip: '10001' });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json.error.message).toMatch(/skip: must be at most 10000; page deeper with cursor/);

    const first = await get({});
    expect(first.json.pagination).toEqual({ total: 3, limit: 50, skip: 0, hasMore: true, nextCursor: expect.any(String), totalExact: true });
    expect(seen.at(-1)).toEqual({ limit: 50, skip: 0 });
    const cursor = first.json.pagination.nextCursor as string;
    expect((await get({ cursor, limit: '10' })).statusCode).toBe(200);
    expect(seen.at(-1)).toEqual({ limit: 10, skip: 0, after: 'position-1' });

    const mac = cursor.split('.')[1];
    const tampered = `${Buffer.from(JSON.stringify({ p: 'position-9', i: Date.now() })).toString('base64url')}.${mac}`;
    for (const [what, res] of [
      ['altered', await get({ cursor: tampered })],
      ['not a cursor', await get({ cursor: 'nonsense' })],
      ["another tenant's", await get({ cursor }, { authorization: `Bearer ${await tokenOf('tnt_2')}` })],
    ] as const) {
      expect(res.statusCode, what).toBe(400);
      expect(res.json.error, what).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/cursor/) });
    }
  });

  it('refuses a missing credential with 401 and still sends the rate-limit headers', async () => {
    const { ports } = fakePorts();
    const res = await call(
      httpRoute(
        'keys/list',
        keysRoutes,
        () => ports,
        async () => ok([]),
      ),
      httpEvent('GET', '/api/keys'),
    );
    expect(res.statusCode).toBe(401);
    expect(res.json).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(res.headers?.['X-RateLimit-Limit']).toBe('20');
  });

  it('answers 403 to a valid API key on a user-only route, 401 to a wrong one', async () => {
    const { record, key } = storedKey('tnt_1');
    const { ports } = fakePorts([record]);
    const handler = httpRoute(
      'keys/list',
      keysRoutes,
      () => ports,
      async () => ok([]),
    );
    expect((await call(handler, httpEvent('GET', '/api/keys', { headers: { 'x-api-key': key } }))).statusCode).toBe(403);
    const wrong = key.slice(0, 25) + (key[25] === 'x' ? 'y' : 'x') + key.slice(26);
    expect((await call(handler, httpEvent('GET', '/api/keys', { headers: { 'x-api-key': wrong } }))).statusCode).toBe(401);
  });

  it("counts an API key's request while the key is looked up, in a bucket a forged secret for the same key id never reaches", async () => {
    const { record, key } = storedKey('tnt_1');
    const forged = issueApiKey(record.id, signing.apiKeyPepper).key;
    const { ports, hits } = fakePorts([record]);
    const { rateLimits, apiKeys } = ports.store;
    const count = rateLimits.hit.bind(rateLimits);
    const lookUp = apiKeys.get.bind(apiKeys);
    let counts = 0;
    const waiting = new Set<() => void>();
    Object.assign(rateLimits, {
      hit: (...args: Parameters<typeof count>) => {
        counts++;
        for (const check of waiting) check();
        return count(...args);
      },
    });
    // Each lookup answers only once the request has been counted meanwhile: counting after it never comes.
    Object.assign(apiKeys, {
      get: async (id: string) => {
        const countsBefore = counts;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('the key was looked up and the request not counted meanwhile')), 1000);
          const check = () => {
            if (counts === countsBefore) return;
            clearTimeout(timer);
            waiting.delete(check);
            resolve();
          };
          waiting.add(check);
        });
        return lookUp(id);
      },
    });
    const handler = httpRoute(
      'agents/list',
      agentsRoutes,
      () => ports,
      async () => ok([]),
    );
    const from = (headers: Record<string, string>) => call(handler, httpEvent('GET', '/api/agents', { headers, ip: '198.51.100.9' }));
    expect((await from({})).headers?.['X-RateLimit-Remaining']).toBe('99');
    expect((await from({ 'x-api-key': key })).headers?.['X-RateLimit-Remaining']).toBe('99');
    const refused = await from({ 'x-api-key': forged });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers?.['X-RateLimit-Remaining'], 'counted against the address').toBe('98');
    const again = await from({ 'x-api-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers?.['X-RateLimit-Remaining']).toBe('98');
    const buckets = [...hits].map(
      ([bucket, n]) =>
        `${bucket
          .split('|')[0]!
          .replace(record.id, '<id>')
          .replace(/:[\w-]{16}$/, ':<secret>')} ${n}`,
    );
    expect(buckets.sort()).toEqual(['ip:198.51.100.9 2', 'key:<id>:<secret> 1', 'key:<id>:<secret> 2']);
  });

  it('limits per credential per tier per minute with 429 and Retry-After', async () => {
    const { ports } = fakePorts();
    const handler = httpRoute(
      'auth/forgot-password',
      authRoutes,
      () => ports,
      async () => ok(null),
    );
    const event = () => httpEvent('POST', '/api/auth/forgot-password', { body: '{"email":"a@b.c"}', ip: '198.51.100.7' });
    for (let i = 0; i < 20; i++) expect((await call(handler, event())).statusCode).toBe(200);
    const limited = await call(handler, event());
    expect(limited.statusCode).toBe(429);
    expect(limited.json.error.code).toBe('RATE_LIMITED');
    expect(limited.headers).toMatchObject({ 'Retry-After': '30', 'X-RateLimit-Remaining': '0' });
    const otherClient = httpEvent('POST', '/api/auth/forgot-password', { body: '{"email":"a@b.c"}', ip: '198.51.100.8' });
    expect((await call(handler, otherClient)).statusCode).toBe(200);
  });

  it("counts a console user by the viewer address the console's distribution vouches for, and an IPv6 client by its /64", async () => {
    const { ports, hits } = fakePorts();
    const seen: string[] = [];
    const handler = httpRoute(
      'auth/forgot-password',
      authRoutes,
      () => ports,
      async ({ clientAddress }) => {
        seen.push(await clientAddress());
        return ok(null);
      },
    );
    const send = (ip: string, headers: Record<string, string> = {}) =>
      call(handler, httpEvent('POST', '/api/auth/forgot-password', { body: '{"email":"a@b.c"}', ip, headers }));
    const edge = '130.176.12.34';
    await send(edge, { [VIEWER_ADDRESS_HEADER]: '198.51.100.20', [ORIGIN_SECRET_HEADER]: ORIGIN_SECRET });
    await send(edge, { [VIEWER_ADDRESS_HEADER]: '198.51.100.21', [ORIGIN_SECRET_HEADER]: ORIGIN_SECRET });
    await send(edge, { [VIEWER_ADDRESS_HEADER]: '198.51.100.22', [ORIGIN_SECRET_HEADER]: 'forged-forged-forged-forged-forged-forged' });
    await send(edge, { [VIEWER_ADDRESS_HEADER]: '198.51.100.23' });
    await send('2001:db8:a:b::1');
    await send('2001:db8:a:b:ffff::2');
    expect(seen).toEqual(['198.51.100.20', '198.51.100.21', edge, edge, '2001:db8:a:b::/64', '2001:db8:a:b::/64']);
    expect([...hits].map(([bucket, n]) => `${bucket.split('|')[0]} ${n}`).sort()).toEqual([
      'ip:130.176.12.34 2',
      'ip:198.51.100.20 1',
      'ip:198.51.100.21 1',
      'ip:2001:db8:a:b::/64 2',
    ]);
  });

  it('hides unexpected errors behind a generic 500', async () => {
    const res = await call(failingWith(new Error('connect ECONNREFUSED 10.0.0.1:5432 password=hunter2')));
    expect(res.statusCode).toBe(500);
    expect(res.json).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
    expect(res.body).not.toContain('hunter2');
  });
});

/** The health route with a handler that throws `err`. */
function failingWith(err: unknown) {
  const { ports } = fakePorts();
  return httpRoute(
    'system/health',
    systemRoutes,
    () => ports,
    async () => {
      throw err;
    },
  );
}

describe('a dependency outage', () => {
  it.each([
    [
      'throttled',
      Object.assign(new Error('Throughput exceeds the current capacity'), {
        name: 'ProvisionedThroughputExceededException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    ],
    [
      'failing on its side',
      Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } }),
    ],
    ['out of time', Object.assign(new Error('The operation was aborted'), { name: 'AbortError' })],
  ])("answers 503 to retry, not 500, when an AWS call failed %s after the SDK's retries", async (_, failure) => {
    const res = await call(failingWith(failure));
    expect(res.statusCode).toBe(503);
    expect(res.json).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.stringMatching(/retry/) } });
    expect(res.headers?.['Retry-After']).toBe('5');
    expect(res.body).not.toContain(failure.message);
  });

  it('answers 503 with the envelope, INTERNAL_ERROR and Retry-After, and no internal detail', async () => {
    const res = await call(failingWith(new ServiceUnavailableError(7, { cause: new Error('connect ECONNREFUSED sqs.internal:443') })));
    expect(res.statusCode).toBe(503);
    expect(res.json).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.stringMatching(/retry/) } });
    expect(res.headers?.['Retry-After']).toBe('7');
    expect(res.body).not.toContain('ECONNREFUSED');
  });
});
