// Logs at INFO for this file only: set before any module (and so the logger) is loaded.
import '../support/info-logs.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
// Every line written to stdout or stderr (the logger writes warnings and errors to stderr).
const lines: string[] = [];
const streams = [process.stdout, process.stderr];
const originalWrites = streams.map((stream) => stream.write.bind(stream));
beforeAll(async () => {
  streams.forEach((stream, i) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return (originalWrites[i] as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  });
  service = await startTestService();
});
afterAll(async () => {
  for (const [i, stream] of streams.entries()) stream.write = originalWrites[i]!;
  await service?.stop();
});

const requestLogs = () =>
  lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['message'] === 'request');

describe('logs', () => {
  it('never contain passwords, access tokens, API keys or link tokens, whatever the request', async () => {
    const password = 'Sup3r-secret-passw0rd';
    const email = 'logger@example.com';
    const reg = await service.api('POST', '/auth/register', { body: { email, password, firstName: 'L', lastName: 'G' } });
    const token = reg.body.data.accessToken as string;
    await service.api('POST', '/auth/login', { body: { email, password: `${password}-wrong` } });
    const login = await service.api('POST', '/auth/login', { body: { email, password } });
    const key = (await service.api('POST', '/keys', { token, body: { name: 'k' } })).body.data;
    const rotated = (await service.api('PUT', `/keys/${key.id}/refresh`, { token })).body.data.key as string;
    await service.api('POST', '/spans', { apiKey: rotated, body: { spans: [{ traceId: 't', spanId: 's', name: 'n', startTime: Date.now() }] } });
    await service.api('GET', '/spans/traces', { apiKey: `${rotated.slice(0, -3)}xyz` });
    await service.api('GET', '/users/profile', { headers: { authorization: `Bearer ${token}x` } });
    await service.api('POST', '/auth/forgot-password', { body: { email } });
    const mail = await service.waitForOutbox((m) => m.to === email && /reset/i.test(m.subject ?? ''), 10_000);
    const resetToken = /token=([\w-]+)/.exec(mail.text)![1]!;
    await service.api('POST', '/auth/reset-password', { body: { token: resetToken, password: `${password}-new` } });
    await service.drainQueues();

    const logged = lines.join('');
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of [
      password,
      `${password}-wrong`,
      `${password}-new`,
      token,
      login.body.data.accessToken,
      key.key,
      rotated,
      resetToken,
      rotated.slice(9, 40),
    ]) {
      expect(logged.includes(secret), `a secret (${secret.slice(0, 6)}…) was logged`).toBe(false);
    }
  });

  it('record one structured line per request: request id, route, method, status, latency, tenant', async () => {
    const entries = requestLogs();
    expect(entries.length).toBeGreaterThan(5);
    for (const e of entries) {
      expect(e).toMatchObject({
        level: 'INFO',
        requestId: expect.any(String),
        route: expect.any(String),
        status: expect.any(Number),
        latencyMs: expect.any(Number),
      });
    }
    expect(entries.some((e) => e['route'] === 'keys/create' && typeof e['tenantId'] === 'string' && e['credential'] === 'user')).toBe(true);
    expect(entries.some((e) => e['route'] === 'spans/ingest' && e['credential'] === 'apiKey' && e['status'] === 202)).toBe(true);
    expect(entries.some((e) => e['route'] === 'auth/login' && e['status'] === 401)).toBe(true);
  });

  it("name each request's line after its own function, with requests and queue batches under way at once", async () => {
    const reg = await service.api('POST', '/auth/register', {
      body: { email: 'many@example.com', password: 'Many-requests-1', firstName: 'M', lastName: 'R' },
    });
    const token = reg.body.data.accessToken as string;
    const apiKey = (await service.api('POST', '/keys', { token, body: { name: 'k' } })).body.data.key as string;
    const before = requestLogs().length;
    const span = (i: number) => ({ traceId: `trace-many-${i}`, spanId: `span-${i}`, name: 'n', startTime: Date.now() });
    await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => service.api('POST', '/spans', { apiKey, body: { spans: [span(i)] } })),
      ...Array.from({ length: 4 }, () => service.api('GET', '/users/profile', { token })),
      ...Array.from({ length: 4 }, () => service.api('GET', '/spans/traces', { apiKey })),
      ...Array.from({ length: 4 }, () => service.api('GET', '/keys', { token })),
      service.drainQueues(),
    ]);
    const entries = requestLogs().slice(before);
    expect(entries.length).toBe(18);
    for (const e of entries) expect(e['function_name']).toBe(`aos-local-http-${String(e['route']).replaceAll('/', '-')}`);
  });
});
