import { describe, expect, it } from 'vitest';
import { API_BASE_PATH, catalog } from '#shared/catalog.ts';
import { createRouter } from '../../infra/local/router.ts';

const route = createRouter(catalog);

describe('the local router, against the catalog', () => {
  it.each(catalog.routes.map((r) => [`${r.method} ${r.path}`, r] as const))('routes %s to its own handler, with its path parameters', (_name, r) => {
    const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const path = r.path.replace(/\{(\w+)\}/g, (_m, name: string) => `value-of-${name}`);
    const match = route(r.method, `${API_BASE_PATH}${path}`);
    expect(match.route.id).toBe(r.id);
    expect(match.routeKey).toBe(`${r.method} ${API_BASE_PATH}${r.path}`);
    expect(match.pathParameters ?? {}).toEqual(Object.fromEntries(names.map((n) => [n, `value-of-${n}`])));
  });

  it('sends anything else to the fallback route, as API Gateway’s $default', () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['PATCH', '/api/keys'],
      ['GET', '/health'],
      ['GET', '/api'],
      ['GET', '/api/keys/a/b/c'],
    ] as const) {
      expect(route(method, path)).toMatchObject({ route: { id: catalog.fallbackRoute.id }, routeKey: '$default' });
    }
  });
});
