import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { API_BASE_PATH, catalog, fallbackRoute, httpHandlerModule, type RouteId, routes } from '#shared/catalog.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { withServer } from '#shared/http/openapi-document.ts';
import { accepted, created, cursorPaged, fileAttachment, ok, paged } from '#shared/http/reply.ts';
import { apiDescription } from '#shared/schemas/openapi.ts';
import { type RouteResponse, routeResponses } from '#shared/schemas/responses.ts';
import { assertDocumentedResponse } from '../support/response-contract.ts';

const document = withServer(apiDescription(), 'https://api.example.com');
const root = join(import.meta.dirname, '../..');

type JsonSchema = { $ref?: string; properties?: Record<string, JsonSchema>; required?: string[]; additionalProperties?: unknown };
type Operation = { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> };

const operationOf = (route: (typeof routes)[number]): Operation =>
  (document.paths as Record<string, Record<string, Operation>>)[route.path]![route.method.toLowerCase()]!;

/** The target of a `#/…` JSON pointer in the document. */
function resolvePointer(ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
}

const resolve = (schema: JsonSchema): JsonSchema => (schema.$ref ? (resolvePointer(schema.$ref) as JsonSchema) : schema);

function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refsIn(value)));
}

/** The success statuses a handler answers with, read from its source and the route factory it delegates to. */
function handlerStatuses(routeId: RouteId): Set<number> {
  const handler = readFileSync(join(root, httpHandlerModule(routeId)), 'utf8');
  const factories = [...handler.matchAll(/from '(?:(?:\.\.\/)+shared|#shared)\/http\/([\w-]+-route)\.ts'/g)].map(([, name]) =>
    readFileSync(join(root, 'shared/http', `${name}.ts`), 'utf8'),
  );
  const source = [handler, ...factories].join('\n');
  const helperStatus: Record<string, number> = {
    ok: ok(null).status,
    created: created(null).status,
    accepted: accepted(null).status,
    paged: paged({ items: [], total: 0, totalExact: true, hasMore: false }, { limit: 1, skip: 0 }, null).status,
    cursorPaged: cursorPaged([], { limit: 1, hasMore: false, nextCursor: null }).status,
    fileAttachment: fileAttachment({ file: '', bytes: 0, contentType: '', filename: '' }).status,
  };
  const statuses = new Set<number>();
  for (const [, helper] of source.matchAll(/\b(ok|created|accepted|paged|cursorPaged|fileAttachment)\(/g)) statuses.add(helperStatus[helper!]!);
  for (const [, status] of source.matchAll(/\b(?:raw|encoded)\((\d{3})\b/g)) statuses.add(Number(status));
  if (statuses.size === 0 && /throw new NotFoundError\(/.test(source)) statuses.add(new NotFoundError().status);
  return statuses;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (standard validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names the server with the API base path once, whether or not the configured URL has it', () => {
    expect(document.servers).toEqual([{ url: `https://api.example.com${API_BASE_PATH}` }]);
    expect(withServer(apiDescription(), `https://api.example.com${API_BASE_PATH}`)).toEqual(document);
  });

  it('covers every catalog route with its method, security and request schemas', () => {
    for (const route of catalog.routes) {
      const operation = (document.paths as Record<string, Record<string, any>>)[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.security).toEqual(route.auth === 'public' ? [] : route.auth === 'jwt' ? [{ bearerAuth: [] }] : [{ bearerAuth: [] }, { apiKey: [] }]);
      for (const name of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect(
          operation.parameters.some((p: { name: string; in: string }) => p.name === name && p.in === 'path'),
          `${route.id} path ${name}`,
        ).toBe(true);
      }
    }
    const operations = Object.values(document.paths).flatMap((p) => Object.keys(p as object));
    expect(operations).toHaveLength(catalog.routes.length);
  });

  it('describes request bodies and query parameters from the zod schemas', () => {
    const register = (document.paths as any)['/auth/register'].post;
    expect(register.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['email', 'password', 'firstName', 'lastName']),
      properties: { password: { type: 'string', minLength: 8 } },
    });
    const traces = (document.paths as any)['/spans/traces'].get;
    expect(traces.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['limit', 'skip', 'agentId', 'startDate', 'endDate']));
  });

  it('gives every operation its own success schema, under the status its handler answers with', () => {
    for (const route of routes) {
      const { status } = routeResponses[route.id];
      const successes = Object.keys(operationOf(route).responses).filter((code) => code.startsWith('2'));
      expect(successes, route.id).toEqual([String(status)]);
      if ((routeResponses[route.id] as RouteResponse).file) continue; // a file, described by its media types
      const body = resolve(operationOf(route).responses[status]!.content['application/json']!.schema);
      expect(Object.keys(body.properties ?? {}), route.id).not.toEqual([]);
      if (route.id === 'system/openapi') continue; // the document itself: free-form beyond its top-level fields
      expect(body.additionalProperties, `${route.id} is strict`).toBe(false);
      const data = body.properties!['data'];
      if (data) expect(data, `${route.id} data`).not.toEqual({});
    }
  });

  it('documents the status each handler answers with, and pagination exactly where the handler pages', () => {
    for (const id of [...routes.map((r) => r.id), fallbackRoute.id]) {
      const statuses = handlerStatuses(id);
      expect([...statuses], id).toEqual([routeResponses[id].status]);
      const documentsPagination = 'pagination' in ((routeResponses[id].body as { shape?: object }).shape ?? {});
      expect(documentsPagination, `${id} pagination`).toBe(/\b(paged|listRoute|cursorPaged)\(/.test(readFileSync(join(root, httpHandlerModule(id)), 'utf8')));
    }
  });

  it('describes the OTLP requests and answers in both encodings', () => {
    for (const path of ['/v1/traces', '/v1/logs']) {
      expect(Object.keys((document.paths as any)[path].post.requestBody.content).sort(), path).toEqual(['application/json', 'application/x-protobuf']);
      const content = (document.paths as any)[path].post.responses['200'].content;
      expect(Object.keys(content).sort(), path).toEqual(['application/json', 'application/x-protobuf']);
      expect(content['application/x-protobuf'].schema.description).toMatch(/^opentelemetry\.proto\.collector\.\w+\.v1\.Export\w+ServiceResponse/);
    }
  });

  it('refers only to schemas it names', () => {
    const refs = new Set(refsIn(document));
    expect(refs.size).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\/\w+\/[\w-]+$/);
      expect(resolvePointer(ref), ref).toBeDefined();
    }
  });
});

describe('the response schemas', () => {
  it('are imported by the OpenAPI document and tests only, so no handler bundles them', () => {
    const importers = ['functions', 'shared', 'infra']
      .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith('shared/schemas/responses'))
      .filter((file) => /from '[^']*\/responses(?:\/[\w-]+)?\.ts'/.test(readFileSync(join(root, file), 'utf8')));
    expect(importers).toEqual(['shared/schemas/openapi.ts']);
  });
});

describe('the check of end-to-end answers against the documented responses', () => {
  const issuedKey = {
    id: 'Ab3dEf6hIj9kLm2n',
    name: 'ci',
    prefix: 'aos_live_Ab3d',
    lastFour: 'x9Z1',
    status: 'active',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    lastUsedAt: null,
    rotatedAt: null,
    revokedAt: null,
    key: 'aos_live_Ab3dEf6hIj9kLm2n_secretsecretsecretsecretsecretse9x9Z1',
  };
  const createKey =
    (body: unknown, status = 201, contentType = 'application/json; charset=utf-8') =>
    () =>
      assertDocumentedResponse('POST', `${API_BASE_PATH}/keys`, { status, contentType, body });

  it('accepts the documented answer', () => {
    expect(createKey({ success: true, data: issuedKey })).not.toThrow();
  });

  it('refuses a missing field, naming the route and the path of the field', () => {
    const { key: _key, ...withoutKey } = issuedKey;
    expect(createKey({ success: true, data: withoutKey })).toThrow(/POST \/api\/keys \(route keys\/create\)[\s\S]*data\.key: /);
  });

  it('refuses an undocumented field and a wrongly typed one', () => {
    expect(createKey({ success: true, data: { ...issuedKey, secretHash: 'h' } })).toThrow(/route keys\/create[\s\S]*data: Unrecognized key: "secretHash"/);
    expect(createKey({ success: true, data: { ...issuedKey, revokedAt: 'yesterday' } })).toThrow(/data\.revokedAt: /);
  });

  it('refuses another success status or content type than the documented ones', () => {
    expect(createKey({ success: true, data: issuedKey }, 200)).toThrow(/route keys\/create\) answered 200; its documented success status is 201/);
    expect(createKey('<html></html>', 201, 'text/html')).toThrow(/answered text\/html/);
  });

  it('takes path parameters and list envelopes as the router and the schema see them', () => {
    const list = (pagination: unknown) => () =>
      assertDocumentedResponse('GET', `${API_BASE_PATH}/spans/alerts`, {
        status: 200,
        contentType: 'application/json',
        body: { success: true, data: [], pagination },
      });
    expect(list({ total: 0, limit: 50, skip: 0, hasMore: false, nextCursor: null, totalExact: true })).not.toThrow();
    expect(list({ total: 0, limit: 50, skip: 0, hasMore: false })).toThrow(/pagination/);
    expect(list(undefined)).toThrow(/route alerts\/list[\s\S]*pagination: /);
    expect(() =>
      assertDocumentedResponse('PUT', `${API_BASE_PATH}/spans/alerts/alr_1/acknowledge`, {
        status: 200,
        contentType: 'application/json',
        body: { success: true, data: {} },
      }),
    ).toThrow(/route alerts\/acknowledge/);
  });
});
