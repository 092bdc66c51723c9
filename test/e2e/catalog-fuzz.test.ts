import { type AttributeValue, DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, type RouteDef } from '#shared/catalog.ts';
import { isStorableNumber } from '#shared/domain/spans/model.ts';
import type { RouteSchemas } from '#shared/schemas/route-schemas.ts';
import { routeSchemas } from '#shared/schemas/routes.ts';
import { exampleOf, jsonSchemaOf } from '../support/examples.ts';
import { type JsonPath, leafPaths, mutate, nested, OUT_OF_RANGE_NUMBERS, randomJson, withValueAt } from '../support/fuzz.ts';
import { type Random, seededRandom } from '../support/random.ts';
import { startTestService, type TestService } from '../support/service.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 9091);
const CASES = Number(process.env.FUZZ_CASES_PER_ROUTE ?? 24);
/** Each route's test gets time in proportion to its cases (`npm run fuzz` runs a thousand per route). */
const caseTimeoutMs = (cases: number) => Math.max(30_000, cases * 100);

let service: TestService;
let token: string;
let apiKey: string;
beforeAll(async () => {
  // No timers: a scheduled job changing the store mid-request would read as the request's doing.
  service = await startTestService({
    catalog: { ...catalog, schedules: [] },
    env: { RATE_LIMITS: JSON.stringify({ auth: 100_000, strict: 100_000, standard: 100_000, ingestion: 100_000 }) },
  });
  ({ token, apiKey } = await service.signUp('catalog-fuzz@example.com'));
  await service.drainQueues();
});
afterAll(() => service?.stop());

/**
 * Everything in the table but what any request moves by design: the rate-limit counters, the failed
 * sign-ins of an address (a refused sign-in counts one), and an API key's `lastUsedAt` (recorded, at
 * most once a minute, for every request the key authenticates).
 */
let client: DynamoDBClient | undefined;
async function storeState(): Promise<string[]> {
  // One client for every read: the local runtime has put dynalite's endpoint in the environment by now.
  client ??= new DynamoDBClient({});
  const items: string[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page: ScanCommandOutput = await client.send(new ScanCommand({ TableName: process.env.TABLE_NAME!, ExclusiveStartKey, ConsistentRead: true }));
    for (const { lastUsedAt: _used, ...item } of page.Items ?? []) if (!/^(RATE|SIGNIN)#/.test(item['PK']?.S ?? '')) items.push(JSON.stringify(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort();
}

function pathOf(route: RouteDef, r: Random): string {
  return route.path.replace(/\{\w+\}/g, () => encodeURIComponent(String(r.chance(0.5) ? 'missing-id' : randomJson(r, 5)).slice(0, 100)));
}

function queryOf(schemas: RouteSchemas, r: Random): string {
  const params = new URLSearchParams();
  const names = schemas.query ? Object.keys((jsonSchemaOf(schemas.query) as { properties?: object }).properties ?? {}) : [];
  for (const name of names) if (r.chance(0.4)) params.append(name, String(randomJson(r, 5)).slice(0, 300));
  // A name the route does not take is refused before the others are read: in a tenth of the cases only.
  if (r.chance(0.1)) params.append(r.pick(['__proto__', 'constructor', 'noSuchParameter']), String(randomJson(r, 5)).slice(0, 300));
  return params.size > 0 ? `?${params}` : '';
}

function bodyOf(schemas: RouteSchemas, r: Random): string | undefined {
  if (!schemas.body) return r.chance(0.3) ? JSON.stringify(randomJson(r)) : undefined;
  const valid = exampleOf(jsonSchemaOf(schemas.body));
  const pick = r.next();
  if (pick < 0.1) return '{"unterminated": ';
  if (pick < 0.2) return '';
  if (pick < 0.5) return JSON.stringify(randomJson(r)) ?? 'null';
  return JSON.stringify(
    typeof valid === 'object' && valid !== null && Object.keys(valid).length > 0 ? mutate(r, valid as Record<string, unknown>) : randomJson(r),
  );
}

// Routes whose success deliberately changes state the fuzzer cannot predict are still fuzzed; only
// refused requests are held to "nothing changed".
describe(`every catalog route under random input (seed ${SEED}, ${CASES} cases each)`, () => {
  it.each(catalog.routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s never answers 5xx, always the envelope',
    async (_name, route) => {
      const r = seededRandom(SEED + route.id.length * 31 + route.path.length);
      const schemas: RouteSchemas = routeSchemas[route.id as keyof typeof routeSchemas];
      let settled = true;
      // The store as the last refused request left it: still the state before the next request.
      let unchanged: string[] | undefined;
      for (let i = 0; i < CASES; i++) {
        const credential = route.auth === 'public' ? {} : r.chance(0.15) ? {} : route.auth === 'jwt' || r.chance(0.5) ? { token } : { apiKey };
        const url = pathOf(route, r) + queryOf(schemas, r);
        const rawBody = route.method === 'GET' ? undefined : bodyOf(schemas, r);
        const contentType = r.chance(0.9) ? 'application/json' : r.pick(['text/plain', 'application/x-protobuf', 'multipart/form-data']);
        if (!settled) await service.drainQueues(30_000);
        const before = unchanged ?? (await storeState());
        const res = await service.api(route.method, url, {
          ...credential,
          ...(rawBody !== undefined ? { rawBody, headers: { 'content-type': contentType } } : {}),
        });
        const what = `${route.method} ${url} ${rawBody?.slice(0, 150) ?? ''} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        expect(res.status, what).toBeLessThan(500);
        settled = res.status >= 400;
        if (res.status >= 400) {
          expect(res.body?.success, what).toBe(false);
          expect(res.body?.error?.code, what).toMatch(/^(VALIDATION_ERROR|UNAUTHORIZED|FORBIDDEN|NOT_FOUND|RATE_LIMITED)$/);
          const after = await storeState();
          expect(
            after.filter((x) => !before.includes(x)),
            `a refused request changed the store: ${what}`,
          ).toEqual([]);
          expect(after.length, what).toBe(before.length);
        }
        unchanged = settled ? before : undefined;
      }
    },
    caseTimeoutMs(CASES),
  );

  it('left every accepted message processable (nothing stuck failing in a queue)', async () => {
    await service.drainQueues(30_000);
  });
});

/**
 * Each number of each route's body (every field, optional ones included) replaced by each number the
 * store cannot hold, and each field by a value nested 40 deep: never a 5xx, and outside telemetry
 * (which keeps such values as text) a 400 naming the field.
 */
describe("every number and every nesting level of every route's body", () => {
  const bodyRoutes = catalog.routes.filter((route) => (routeSchemas[route.id as keyof typeof routeSchemas] as RouteSchemas).body !== undefined);
  const DEEP = nested(40, 1);

  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s',
    async (_name, route) => {
      const schemas: RouteSchemas = routeSchemas[route.id as keyof typeof routeSchemas];
      const example = exampleOf(jsonSchemaOf(schemas.body!), 0, true);
      const credential = route.auth === 'public' ? {} : route.auth === 'jwt' ? { token } : { apiKey };
      const path = route.path.replace(/\{\w+\}/g, 'missing-id');
      const cases: [JsonPath, unknown][] = [
        ...leafPaths(example, (v) => typeof v === 'number').flatMap((leaf) => OUT_OF_RANGE_NUMBERS.map((n): [JsonPath, unknown] => [leaf, n])),
        ...leafPaths(example, () => true).map((leaf): [JsonPath, unknown] => [leaf, DEEP]),
      ];
      expect(cases.length).toBeGreaterThan(0);
      for (const [leaf, value] of cases) {
        const res = await service.api(route.method, path, { ...credential, body: withValueAt(example, leaf, value) });
        const what = `${route.method} ${path} with ${leaf.join('.')} = ${typeof value === 'number' ? value : 'nested 40 deep'} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
        expect(res.status, what).toBeLessThan(500);
        const storable = typeof value === 'number' && isStorableNumber(value);
        if (!storable && !schemas.convertsUnstorableValues) {
          expect(res.status, what).toBe(400);
          expect(res.body.error.message, what).toContain(leaf.join('.'));
        }
      }
      await service.drainQueues(30_000);
    },
    120_000,
  );
});

/** Query values at the edges of what a parameter takes: far and invalid dates, extreme and odd numbers, empty. */
const EDGE_QUERY_VALUES = [
  '2100-01-01',
  '9000-01-01',
  '+275760-09-13T00:00:00.000Z',
  '1970-01-01T00:00:00.000Z',
  '8640000000000000',
  '0',
  '-1',
  '1e308',
  'NaN',
  '2024-02-30',
  '',
];

/**
 * Each query parameter of each route alone at each edge value, and a range that ends before it starts:
 * never a 5xx, always the envelope (a range in the future, or one past the store's keys, found none).
 */
describe('every query parameter of every route at its edges', () => {
  const queryRoutes = catalog.routes.filter((route) => (routeSchemas[route.id as keyof typeof routeSchemas] as RouteSchemas).query !== undefined);

  it.each(queryRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s',
    async (_name, route) => {
      const schemas: RouteSchemas = routeSchemas[route.id as keyof typeof routeSchemas];
      const names = Object.keys((jsonSchemaOf(schemas.query!) as { properties?: object }).properties ?? {});
      const credential = route.auth === 'public' ? {} : route.auth === 'jwt' ? { token } : { apiKey };
      const path = route.path.replace(/\{\w+\}/g, 'missing-id');
      const queries = names.flatMap((name) => EDGE_QUERY_VALUES.map((value) => new URLSearchParams({ [name]: value })));
      if (names.includes('startDate') && names.includes('endDate')) queries.push(new URLSearchParams({ startDate: '2100-01-01', endDate: '2000-01-01' }));
      for (const query of queries) {
        const res = await service.api(route.method, `${path}?${query}`, credential);
        const what = `${route.method} ${path}?${query} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400) expect(res.body?.success, what).toBe(false);
        else expect(res.body?.success ?? true, what).not.toBe(false);
      }
    },
    120_000,
  );
});
