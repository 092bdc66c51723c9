import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHandlerModule } from '#shared/catalog.ts';
import { withServer } from '#shared/http/openapi-document.ts';
import { apiDescription } from '#shared/schemas/openapi.ts';
import { bundleModules, PROJECT_ROOT } from '../support/bundles.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Bundles as Lambda runs them: built with the CDK functions' esbuild settings and invoked, each in a
 * fresh Node.js process, with the environment the local runtime gives its handlers. Every other suite
 * runs the TypeScript sources, where package.json's `sideEffects`, the credential-provider alias and
 * tree-shaking change nothing; this one catches a bundle that loads but fails, or answers otherwise,
 * when it runs.
 */
const ROUTES = ['auth/login', 'users/profile', 'agents/list', 'analytics/latency-percentiles', 'system/openapi', 'system/not-found'] as const;
const run = promisify(execFile);

let service: TestService;
let outdir: string;
let user: { email: string; token: string; apiKey: string };

beforeAll(async () => {
  service = await startTestService();
  outdir = await mkdtemp(join(tmpdir(), 'aos-bundle-smoke-'));
  await bundleModules(ROUTES.map(httpHandlerModule), { outdir, write: true });
  await writeFile(join(outdir, 'package.json'), '{"type":"module"}');
  await writeFile(
    join(outdir, 'invoke.mjs'),
    [
      'const [module, event] = process.argv.slice(2);',
      'const { handler } = await import(module);',
      "const context = { awsRequestId: 'bundle-smoke', functionName: 'bundle-smoke', getRemainingTimeInMillis: () => 30_000 };",
      "process.stdout.write('\\n' + JSON.stringify(await handler(JSON.parse(event), context)));",
    ].join('\n'),
  );
  const email = 'bundled@example.com';
  user = { email, ...(await service.signUp(email)) };
  expect((await service.api('POST', '/agents', { apiKey: user.apiKey, body: { name: 'bundled-agent' } })).status).toBe(201);
  const now = Date.now();
  const spans = [120, 480, 950, 2_300, 7_000].map((latencyMs, i) => ({
    traceId: `bundled-${i}`,
    spanId: `root-${i}`,
    name: 'answer',
    agentName: 'bundled-agent',
    startTime: now - 60_000,
    endTime: now - 60_000 + latencyMs,
  }));
  expect((await service.api('POST', '/spans', { apiKey: user.apiKey, body: { spans } })).status).toBe(202);
  await service.drainQueues();
}, 120_000);
afterAll(async () => {
  await service?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

const template = JSON.parse(await readFile(join(PROJECT_ROOT, 'events/http/register.json'), 'utf8')) as APIGatewayProxyEventV2;

function event(
  method: string,
  path: string,
  request: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const headers = { ...template.headers, ...request.headers } as Record<string, string>;
  delete headers['content-length'];
  return {
    ...template,
    routeKey: `${method} /api${path}`,
    rawPath: `/api${path}`,
    headers,
    requestContext: { ...template.requestContext, http: { ...template.requestContext.http, method, path: `/api${path}` }, routeKey: `${method} /api${path}` },
    ...(request.query ? { queryStringParameters: request.query, rawQueryString: new URLSearchParams(request.query).toString() } : {}),
    ...(request.body === undefined ? { body: undefined } : { body: JSON.stringify(request.body) }),
  };
}

async function invoke(route: (typeof ROUTES)[number], request: APIGatewayProxyEventV2) {
  const bundle = join(outdir, httpHandlerModule(route).replace(/\.ts$/, '.js'));
  const { stdout } = await run(process.execPath, [join(outdir, 'invoke.mjs'), bundle, JSON.stringify(request)], {
    env: { PATH: process.env.PATH, ...service.environment, LOG_LEVEL: 'SILENT' },
    timeout: 30_000,
  });
  const result = JSON.parse(stdout.slice(stdout.lastIndexOf('\n') + 1)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
}

describe('the bundled functions, run as Lambda runs them', () => {
  it('sign a token on login (DynamoDB, scrypt, ES256) that the service accepts', async () => {
    const login = await invoke('auth/login', event('POST', '/auth/login', { body: { email: user.email, password: 'password-123' } }));
    expect(login.status).toBe(200);
    const profile = await service.api('GET', '/users/profile', { token: login.body.data.accessToken });
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe(user.email);
  });

  it("answer bad input with zod's English messages (the module that loads them is kept)", async () => {
    const refused = await invoke('auth/login', event('POST', '/auth/login', { body: { password: 'password-123' } }));
    expect(refused).toEqual({ status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'Invalid body: email: is required' } } });
  });

  it("verify the service's tokens and API keys", async () => {
    const profile = await invoke('users/profile', event('GET', '/users/profile', { headers: { authorization: `Bearer ${user.token}` } }));
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe(user.email);
    const agents = await invoke('agents/list', event('GET', '/agents', { headers: { 'x-api-key': user.apiKey } }));
    expect(agents.status).toBe(200);
    expect(agents.body.data).toEqual([expect.objectContaining({ name: 'bundled-agent', metrics: expect.objectContaining({ requestCount: 5 }) })]);
    const forged = await invoke('agents/list', event('GET', '/agents', { headers: { 'x-api-key': `${user.apiKey.slice(0, -4)}abcd` } }));
    expect(forged.status).toBe(401);
  });

  it('read the latency sketches of the rollups as the sources do', async () => {
    const query = { startDate: new Date(Date.now() - 3_600_000).toISOString(), endDate: new Date(Date.now() - 5_000).toISOString() };
    const bundled = await invoke(
      'analytics/latency-percentiles',
      event('GET', '/analytics/traces/latency-percentiles', { headers: { 'x-api-key': user.apiKey }, query }),
    );
    const source = await service.api('GET', `/analytics/traces/latency-percentiles?${new URLSearchParams(query)}`, { apiKey: user.apiKey });
    expect(bundled.status).toBe(200);
    expect(bundled.body).toEqual(source.body);
    expect(bundled.body.data).toMatchObject({ count: 5, minMs: 120, maxMs: 7000, p50Ms: expect.closeTo(950, -1.5), p99Ms: expect.closeTo(7000, -2) });
  });

  it('serve the OpenAPI document packed at bundling, equal to the one the sources build', async () => {
    const served = await invoke('system/openapi', event('GET', '/openapi.json'));
    expect(served.status).toBe(200);
    expect(served.body).toEqual(withServer(apiDescription(), service.environment.PUBLIC_APP_URL!));
    expect(Object.keys(served.body)).toEqual(['openapi', 'info', 'servers', 'paths', 'components']);
  });

  it('answer an unknown route with the 404 envelope', async () => {
    expect(await invoke('system/not-found', event('GET', '/nowhere'))).toEqual({
      status: 404,
      body: { success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } },
    });
  });
});
