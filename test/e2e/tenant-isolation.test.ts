import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, type RouteDef } from '#shared/catalog.ts';
import { issueAccessToken } from '#shared/domain/accounts/jwt.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Real ids of the first tenant's resources. */
interface Ids {
  keyId: string;
  agentId: string;
  traceId: string;
  alertId: string;
  experimentId: string;
  sessionId: string;
  exportId: string;
}
type Probe = { path: string; body?: unknown; query?: string };

/**
 * How a second tenant probes each route with the first tenant's ids. Every catalog route must be
 * here: `null` marks a route that takes no id (its isolation is the tenant scoping of its answer,
 * checked by the snapshot below).
 */
const PROBES: Record<string, ((ids: Ids) => Probe) | null> = {
  'system/health': null,
  'system/jwks': null,
  'system/openapi': null,
  'auth/register': null,
  'auth/login': null,
  'auth/forgot-password': null,
  'auth/reset-password': null,
  'auth/verify-email': null,
  // The refresh token is the credential: it names its own sign-in, never another's (test/e2e/sign-in-sessions.test.ts).
  'auth/refresh': null,
  'auth/logout': null,
  'auth/hosted-sign-in': null,
  'users/profile': null,
  'keys/create': null,
  'keys/list': null,
  'keys/refresh': (ids) => ({ path: `/keys/${ids.keyId}/refresh` }),
  'keys/revoke': (ids) => ({ path: `/keys/${ids.keyId}/revoke` }),
  'keys/delete': (ids) => ({ path: `/keys/${ids.keyId}` }),
  'otlp/traces': null,
  'otlp/logs': null,
  'spans/ingest': null,
  'spans/list-traces': (ids) => ({ path: '/spans/traces', query: `agentId=${ids.agentId}` }),
  'spans/get-trace': (ids) => ({ path: `/spans/traces/${ids.traceId}` }),
  'spans/filters': null,
  'sessions/list': (ids) => ({ path: '/sessions', query: `agentId=${ids.agentId}` }),
  'sessions/get': (ids) => ({ path: `/sessions/${ids.sessionId}` }),
  'logs/ingest': null,
  'logs/list': (ids) => ({ path: '/logs', query: `agentId=${ids.agentId}` }),
  'signals/record': null,
  'signals/record-batch': null,
  'signals/list': (ids) => ({ path: '/signals', query: `agentId=${ids.agentId}` }),
  'signals/summary': (ids) => ({ path: '/signals/summary', query: `agentId=${ids.agentId}` }),
  'signals/of-trace': (ids) => ({ path: `/signals/trace/${ids.traceId}` }),
  'agents/list': null,
  'agents/create': null,
  'agents/get': (ids) => ({ path: `/agents/${ids.agentId}` }),
  'agents/update': (ids) => ({ path: `/agents/${ids.agentId}`, body: { description: 'taken over' } }),
  'agents/delete': (ids) => ({ path: `/agents/${ids.agentId}` }),
  'agents/update-alerts': (ids) => ({ path: `/agents/${ids.agentId}/alerts`, body: { thresholds: { cost: 0.01 } } }),
  'analytics/metrics': (ids) => ({ path: '/analytics/metrics', query: `agentId=${ids.agentId}` }),
  'analytics/success-failure': (ids) => ({ path: '/analytics/traces/success-failure', query: `agentId=${ids.agentId}` }),
  'analytics/requests-over-time': (ids) => ({ path: '/analytics/traces/requests-over-time', query: `agentId=${ids.agentId}` }),
  'analytics/latency-percentiles': (ids) => ({ path: '/analytics/traces/latency-percentiles', query: `agentId=${ids.agentId}` }),
  'analytics/token-usage': (ids) => ({ path: '/analytics/traces/token-usage', query: `agentId=${ids.agentId}` }),
  'analytics/costs': (ids) => ({ path: '/analytics/costs', query: `agentId=${ids.agentId}` }),
  'alerts/list': (ids) => ({ path: '/spans/alerts', query: `agentId=${ids.agentId}` }),
  'alerts/summary': (ids) => ({ path: '/spans/alerts/summary', query: `agentId=${ids.agentId}` }),
  'alerts/get': (ids) => ({ path: `/spans/alerts/${ids.alertId}` }),
  'alerts/acknowledge': (ids) => ({ path: `/spans/alerts/${ids.alertId}/acknowledge` }),
  'alerts/reopen': (ids) => ({ path: `/spans/alerts/${ids.alertId}/reopen` }),
  'alerts/resolve': (ids) => ({ path: `/spans/alerts/${ids.alertId}/resolve` }),
  'profiles/get': (ids) => ({ path: `/agents/${ids.agentId}/agent-profile` }),
  'profiles/update': (ids) => ({ path: `/agents/${ids.agentId}/agent-profile`, body: { insights: ['a', 'b', 'c'] } }),
  'profiles/regenerate': (ids) => ({ path: `/agents/${ids.agentId}/agent-profile/regenerate` }),
  'profiles/reset-training': (ids) => ({ path: `/agents/${ids.agentId}/agent-profile/reset-training` }),
  'experiments/list': (ids) => ({ path: '/experiments', query: `agentId=${ids.agentId}` }),
  'experiments/create': (ids) => ({
    path: '/experiments',
    body: {
      name: 'hijack',
      agentId: ids.agentId,
      variants: [
        { key: 'a', weight: 50 },
        { key: 'b', weight: 50 },
      ],
      primaryMetric: 'successRate',
    },
  }),
  'experiments/get': (ids) => ({ path: `/experiments/${ids.experimentId}` }),
  'experiments/start': (ids) => ({ path: `/experiments/${ids.experimentId}/start` }),
  'experiments/pause': (ids) => ({ path: `/experiments/${ids.experimentId}/pause` }),
  'experiments/stop': (ids) => ({ path: `/experiments/${ids.experimentId}/stop` }),
  'experiments/assign': (ids) => ({ path: `/experiments/${ids.experimentId}/assign`, query: 'subjectId=user-1' }),
  'experiments/results': (ids) => ({ path: `/experiments/${ids.experimentId}/results` }),
  // Search is scoped by the tenant of the credential alone (test/e2e/search.test.ts tries crafted queries and cursors).
  'search/traces': null,
  'search/ask': null,
  'exports/create': null,
  'exports/list': null,
  'exports/get': (ids) => ({ path: `/exports/${ids.exportId}` }),
  'exports/download': (ids) => ({ path: `/exports/${ids.exportId}/download` }),
};

let service: TestService;
let owner: { token: string; apiKey: string };
let intruder: { token: string; apiKey: string };
let ids: Ids;

/** What the owner sees of its own data; must not change whatever the intruder tries. */
async function ownerSnapshot() {
  const read = async (path: string) => (await service.api('GET', path, { apiKey: owner.apiKey })).body.data;
  return {
    keys: (await service.api('GET', '/keys', { token: owner.token })).body.data.map((k: { id: string; status: string; lastFour: string }) => [
      k.id,
      k.status,
      k.lastFour,
    ]),
    agent: await read(`/agents/${ids.agentId}`).then((a) => ({ ...a, metrics: undefined, lastSeenAt: undefined })),
    trace: await read(`/spans/traces/${ids.traceId}`),
    session: await read(`/sessions/${ids.sessionId}`),
    alert: await read(`/spans/alerts/${ids.alertId}`),
    experiment: await read(`/experiments/${ids.experimentId}`),
  };
}

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, strict: 1000, standard: 10_000, ingestion: 10_000 }) } });
  const a = await service.signUp('owner@isolation.example');
  owner = a;
  intruder = await service.signUp('intruder@isolation.example');
  const agentId = (await service.api('POST', '/agents', { apiKey: a.apiKey, body: { name: 'guarded' } })).body.data.id as string;
  const now = Date.now();
  await service.api('POST', '/spans', {
    apiKey: a.apiKey,
    body: {
      spans: [
        {
          traceId: 'secret-trace',
          spanId: 'root',
          name: 'run',
          agentName: 'guarded',
          startTime: now - 1000,
          endTime: now,
          status: 'error',
          errorType: 'Boom',
          sessionId: 'secret-session',
        },
      ],
    },
  });
  await service.api('POST', '/signals', { apiKey: a.apiKey, body: { signalName: 'score', value: 1, traceId: 'secret-trace' } });
  await service.drainQueues();
  const alertId = (await service.api('GET', '/spans/alerts', { apiKey: a.apiKey })).body.data[0].id as string;
  const experiment = await service.api('POST', '/experiments', {
    apiKey: a.apiKey,
    body: {
      name: 'guarded test',
      agentId,
      variants: [
        { key: 'control', weight: 50 },
        { key: 'terse', weight: 50 },
      ],
      primaryMetric: 'successRate',
    },
  });
  const experimentId = experiment.body.data.id as string;
  await service.api('POST', `/experiments/${experimentId}/start`, { apiKey: a.apiKey });
  const exported = await service.api('POST', '/exports', {
    apiKey: a.apiKey,
    body: { format: 'jsonl', startDate: new Date(now - 86_400_000).toISOString(), endDate: new Date(now + 60_000).toISOString() },
  });
  ids = { keyId: a.keyId, agentId, traceId: 'secret-trace', alertId, experimentId, sessionId: 'secret-session', exportId: exported.body.data.id as string };
});
afterAll(() => service?.stop());

const routesWithIds = catalog.routes.filter((r) => PROBES[r.id]);

describe('tenant isolation, generated from the catalog', () => {
  it('has a probe (or an explicit null) for every catalog route', () => {
    expect(Object.keys(PROBES).sort()).toEqual(catalog.routes.map((r) => r.id).sort());
  });

  it.each(routesWithIds.map((r) => [r.id, r] as const))(
    '%s: another tenant gets 404 with a JWT and with an API key, and nothing changes',
    async (_id, route: RouteDef) => {
      const before = await ownerSnapshot();
      const probe = PROBES[route.id]!(ids);
      const url = probe.query ? `${probe.path}?${probe.query}` : probe.path;
      const credentials = route.auth === 'jwt' ? [{ token: intruder.token }] : [{ token: intruder.token }, { apiKey: intruder.apiKey }];
      for (const credential of credentials) {
        const res = await service.api(route.method, url, { ...credential, ...(probe.body !== undefined ? { body: probe.body } : {}) });
        expect(res.status, `${route.method} ${url} with ${Object.keys(credential)[0]}`).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
      await service.drainQueues();
      expect(await ownerSnapshot()).toEqual(before);
    },
  );

  it('answers a list without an id filter with the intruder’s own (empty) data only', async () => {
    for (const path of [
      '/spans/traces',
      '/spans/traces?sessionId=secret-session',
      '/sessions',
      '/logs',
      '/signals',
      '/spans/alerts',
      '/agents',
      '/experiments',
    ]) {
      expect((await service.api('GET', path, { apiKey: intruder.apiKey })).body.data, path).toEqual([]);
    }
    expect((await service.api('GET', '/analytics/metrics', { apiKey: intruder.apiKey })).body.data.totalTraces).toBe(0);
    expect((await service.api('GET', '/spans/filters', { apiKey: intruder.apiKey })).body.data.agents).toEqual([]);
  });
});

describe('refused credentials, on every protected route', () => {
  const protectedRoutes = catalog.routes.filter((r) => r.auth !== 'public');
  const pathOf = (r: RouteDef) => r.path.replace(/\{(\w+)\}/g, 'some-id');
  const bodyOf = (r: RouteDef) => (r.method === 'GET' ? {} : { body: {} });

  it('a revoked API key is refused with 401', async () => {
    const victim = await service.signUp('revoked@isolation.example');
    await service.api('POST', `/keys/${victim.keyId}/revoke`, { token: victim.token });
    for (const route of protectedRoutes) {
      const res = await service.api(route.method, pathOf(route), { apiKey: victim.apiKey, ...bodyOf(route) });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it('an expired JWT is refused with 401', async () => {
    const keys = await signingMaterialFromSeed(process.env.SIGNING_SEED!);
    const claims = JSON.parse(Buffer.from(owner.token.split('.')[1]!, 'base64url').toString());
    const { accessToken } = await issueAccessToken(
      { userId: claims.sub, tenantId: claims.tid, email: claims.email },
      keys,
      { issuer: claims.iss, audience: claims.aud, ttlSeconds: 60 },
      new Date(Date.now() - 3_600_000),
    );
    for (const route of protectedRoutes) {
      const res = await service.api(route.method, pathOf(route), { token: accessToken, ...bodyOf(route) });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });
});
