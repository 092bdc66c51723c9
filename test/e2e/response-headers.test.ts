import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Every answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`; `service.api`
 * checks that on every answer of every end-to-end suite, and these cases check it where a request
 * never reaches a handler's logic.
 */
describe('response headers', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, standard: 2 }) } });
  });
  afterAll(() => service?.stop());

  const expectSecure = (res: { status: number; headers: Headers }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  };

  it('on answers that carry a token or a key', async () => {
    const { token } = await service.signUp('headers@example.com');
    expectSecure(await service.api('POST', '/auth/login', { body: { email: 'headers@example.com', password: 'password-123' } }), 200);
    expectSecure(await service.api('POST', '/keys', { token, body: { name: 'another' } }), 201);
  });

  it('on errors, refusals, unknown routes and the rate limit', async () => {
    expectSecure(await service.api('GET', '/no/such/route'), 404);
    expectSecure(await service.api('GET', '/agents'), 401);
    expectSecure(await service.api('POST', '/auth/login', { body: { email: 'not an address' } }), 400);
    expectSecure(await service.api('POST', '/auth/login', { rawBody: 'x'.repeat(11 * 1024 * 1024), headers: { 'content-type': 'application/json' } }), 413);
    const { apiKey } = await service.signUp('limited@example.com');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await service.api('GET', '/agents', { apiKey }));
    expectSecure(answers[2]!, 429);
  });

  it('on OTLP answers, JSON and protobuf', async () => {
    const { apiKey } = await service.signUp('otlp-headers@example.com');
    expectSecure(await service.api('POST', '/v1/traces', { apiKey, body: { resourceSpans: [] } }), 200);
    expectSecure(await service.api('POST', '/v1/traces', { apiKey, rawBody: new Uint8Array(), headers: { 'content-type': 'application/x-protobuf' } }), 200);
  });

  it('on CORS preflights', async () => {
    const res = await fetch(`${service.baseUrl}/keys`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
