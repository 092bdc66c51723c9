import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalog, httpHandlerModule, jobModule, workerModule } from '#shared/catalog.ts';
import { routeSchemas } from '#shared/schemas/routes.ts';

const root = join(import.meta.dirname, '../..');
const filesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));

describe('the catalog', () => {
  const httpModules = [...catalog.routes.map((r) => r.id), catalog.fallbackRoute.id].map(httpHandlerModule);

  it('has a handler file for every route, and no handler file outside it', () => {
    for (const module of httpModules) expect(existsSync(join(root, module)), module).toBe(true);
    expect(filesUnder('functions/http').sort()).toEqual([...httpModules].sort());
  });

  it('has a consumer for every queue and a job for every schedule, and nothing else', () => {
    expect(filesUnder('functions/workers').sort()).toEqual(catalog.queues.map((q) => workerModule(q.consumer)).sort());
    const jobs = existsSync(join(root, 'functions/jobs')) ? filesUnder('functions/jobs') : [];
    expect(jobs.sort()).toEqual(catalog.schedules.map((s) => jobModule(s.job)).sort());
  });

  it('names each route once and each method + path once', () => {
    const ids = catalog.routes.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = catalog.routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has request schemas and a summary for every route', () => {
    expect(Object.keys(routeSchemas).sort()).toEqual([...catalog.routes.map((r) => r.id), catalog.fallbackRoute.id].sort());
  });

  it('follows the spec on who may call what', () => {
    const auth = (id: string) => catalog.routes.find((r) => r.id === id)?.auth;
    for (const r of catalog.routes) {
      if (r.path.startsWith('/auth/') || ['/health', '/openapi.json', '/.well-known/jwks.json'].includes(r.path)) expect(r.auth, r.id).toBe('public');
      if (r.path.startsWith('/keys') || r.path === '/users/profile') expect(r.auth, r.id).toBe('jwt');
      if (r.path.startsWith('/keys')) expect(r.tier, r.id).toBe('strict');
    }
    expect(auth('users/profile')).toBe('jwt');
  });
});
