import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let root: string;
let service: TestService;
let origin: string;

beforeAll(async () => {
  // The build, and beside it a file no request may reach.
  root = await mkdtemp(join(tmpdir(), 'aos-console-'));
  const dist = join(root, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  await writeFile(join(root, 'outside.txt'), 'secret');
  service = await startTestService({ consoleDir: dist });
  origin = service.baseUrl.replace(/\/api$/, '');
});
afterAll(async () => {
  await service?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('the console beside the API (same origin)', () => {
  it('answers every page path with the app, with the security headers', async () => {
    for (const path of ['/', '/traces', '/traces/trace.with.dots', '/alerts/alr_1?x=1', '/reset-password?token=abc']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('<title>console</title>');
    }
  });

  it('serves hashed assets for good, and a missing one as 404 (not the app)', async () => {
    const asset = await fetch(`${origin}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${origin}/assets/index-old.js`)).status).toBe(404);
  });

  it('never serves a file outside the build', async () => {
    for (const path of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/..%2f..%2foutside.txt']) {
      const res = await fetch(`${origin}${path}`);
      expect(await res.text(), path).not.toContain('secret');
    }
  });

  it('leaves /api to the API: its JSON 404 and its routes', async () => {
    const missing = await fetch(`${origin}/api/no/such/route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(await (await fetch(`${origin}/api/health`)).json()).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('answers only GET and HEAD', async () => {
    expect((await fetch(`${origin}/traces`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${origin}/traces`, { method: 'HEAD' })).status).toBe(200);
  });
});
