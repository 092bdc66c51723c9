import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSchemas } from '#shared/schemas/route-schemas.ts';
import { routeSchemas } from '#shared/schemas/routes.ts';
import { jsonSchemaOf } from '../support/examples.ts';
import { type JsonPath, leafPaths, mutate, nested, nestedJsonText, OUT_OF_RANGE_NUMBERS, randomJson, withValueAt } from '../support/fuzz.ts';
import { seededRandom as prng } from '../support/random.ts';
import { startTestService, type TestService } from '../support/service.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const CASES = Number(process.env.FUZZ_CASES_PER_ROUTE ?? 120);
/** Time in proportion to the cases (`npm run fuzz` runs a thousand per route). */
const TIMEOUT_MS = Math.max(30_000, CASES * 150);

let service: TestService;
let apiKey: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000, strict: 1000 }) } });
  ({ apiKey } = await service.signUp('fuzz@example.com'));
});
afterAll(() => service?.stop());

const validBodies: Record<string, Record<string, unknown>> = {
  '/spans': {
    spans: [{ traceId: 't', spanId: 's', name: 'n', startTime: 1_735_689_600_000, kind: 'llm', model: 'gpt-4o', inputTokens: 1, attributes: { a: 1 } }],
  },
  '/signals': { signalName: 'x', value: 1, traceId: 't', metadata: { k: 'v' } },
  '/signals/batch': { signals: [{ signalName: 'x', value: 1 }] },
  '/logs': { logs: [{ timestamp: 1_735_689_600_000, level: 'info', message: 'm', attributes: {} }] },
  '/v1/traces': {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                name: 'n',
                startTimeUnixNano: '1735689600000000000',
                attributes: [
                  { key: 'gen_ai.usage.input_tokens', value: { intValue: 3 } },
                  { key: 'score', value: { doubleValue: 0.5 } },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  '/v1/logs': { resourceLogs: [{ resource: {}, scopeLogs: [{ logRecords: [{ timeUnixNano: '1735689600000000000', body: { stringValue: 'x' } }] }] }] },
};

function expectHandled(res: { status: number; body: any }, what: string) {
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 400) expect(res.body?.error?.code, what).toMatch(/^(VALIDATION_ERROR|FORBIDDEN|NOT_FOUND|UNAUTHORIZED|RATE_LIMITED)$/);
}

describe(`ingestion fuzz (seed ${SEED})`, () => {
  it.each(Object.keys(validBodies))(
    'POST %s never answers 5xx to random or mutated JSON',
    async (path) => {
      const r = prng(SEED + path.length);
      for (let i = 0; i < CASES; i++) {
        const body = i % 2 === 0 ? randomJson(r) : mutate(r, validBodies[path]!);
        const res = await service.api('POST', path, { apiKey, rawBody: JSON.stringify(body) ?? 'undefined', headers: { 'content-type': 'application/json' } });
        expectHandled(res, `${path} case ${i}: ${JSON.stringify(body)?.slice(0, 200)}`);
      }
    },
    TIMEOUT_MS,
  );

  it.each(Object.keys(validBodies))(
    'POST %s never answers 5xx to numbers the store cannot hold or nesting it cannot keep, anywhere',
    async (path) => {
      const valid = validBodies[path]!;
      const cases: [JsonPath, unknown][] = [
        ...leafPaths(valid, (v) => typeof v === 'number').flatMap((leaf) => OUT_OF_RANGE_NUMBERS.map((n): [JsonPath, unknown] => [leaf, n])),
        ...leafPaths(valid, () => true).map((leaf): [JsonPath, unknown] => [leaf, nested(40, 1.5)]),
      ];
      for (const [leaf, value] of cases) {
        const body = withValueAt(valid, leaf, value);
        const res = await service.api('POST', path, { apiKey, body });
        expectHandled(
          res,
          `${path} with ${leaf.join('.')} = ${typeof value === 'number' ? value : 'nested 40 deep'}: ${JSON.stringify(res.body).slice(0, 200)}`,
        );
      }
      // Past what any recursive walk survives (JSON.stringify itself), so sent as text made without one.
      const placeholder = 'nested-6000-deep';
      for (const leaf of leafPaths(valid, () => true)) {
        const rawBody = JSON.stringify(withValueAt(valid, leaf, placeholder)).replace(JSON.stringify(placeholder), nestedJsonText(6000, 1.5));
        const res = await service.api('POST', path, { apiKey, rawBody, headers: { 'content-type': 'application/json' } });
        expectHandled(res, `${path} with ${leaf.join('.')} nested 6000 deep: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'OTLP protobuf endpoints never answer 5xx to random bytes',
    async () => {
      const r = prng(SEED);
      for (let i = 0; i < CASES; i++) {
        const bytes = randomBytes(r.below(2000));
        for (const path of ['/v1/traces', '/v1/logs']) {
          const res = await service.api('POST', path, { apiKey, rawBody: bytes, headers: { 'content-type': 'application/x-protobuf' } });
          expectHandled(res, `${path} case ${i}`);
        }
      }
    },
    TIMEOUT_MS,
  );

  it(
    'list endpoints never answer 5xx to random query strings',
    async () => {
      const r = prng(SEED + 1);
      const params = ['limit', 'skip', 'startDate', 'endDate', 'agentId', 'status', 'model', 'sessionId', 'traceId', 'signalName', 'level', '__proto__'];
      // Each route's own parameters, so that most cases reach their parsing (a name a route does not take is refused first).
      const taken = (routeId: keyof typeof routeSchemas) =>
        Object.keys((jsonSchemaOf((routeSchemas[routeId] as RouteSchemas).query!) as { properties?: object }).properties ?? {});
      const routes = [
        ['/spans/traces', 'spans/list-traces'],
        ['/signals', 'signals/list'],
        ['/logs', 'logs/list'],
        ['/signals/summary', 'signals/summary'],
        ['/agents', 'agents/list'],
        ['/spans/filters', undefined],
      ] as const;
      for (let i = 0; i < CASES; i++) {
        const picks = Array.from({ length: r.below(4) + 1 }, (): [string, string] => [r.pick(params), String(randomJson(r, 5)).slice(0, 500)]);
        for (const [path, routeId] of routes) {
          const names = routeId ? taken(routeId) : [];
          const query = new URLSearchParams(picks.filter(([name]) => names.includes(name) || r.chance(0.1)));
          const res = await service.api('GET', `${path}?${query}`, { apiKey });
          expectHandled(res, `${path}?${query}`);
        }
        const id = encodeURIComponent(String(randomJson(r, 5)).slice(0, 200));
        for (const path of [`/spans/traces/${id}`, `/signals/trace/${id}`, `/agents/${id}`]) expectHandled(await service.api('GET', path, { apiKey }), path);
      }
    },
    TIMEOUT_MS * 9,
  );

  it(
    'the worker persists everything that was accepted (no record left failing in the queue)',
    async () => {
      await service.drainQueues(TIMEOUT_MS);
    },
    TIMEOUT_MS + 5_000,
  );
});
