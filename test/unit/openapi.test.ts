import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../shared/catalog.ts';
import { openApiDocument } from '../../shared/schemas/openapi.ts';

const document = openApiDocument('https://api.example.com');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (standard validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('covers every catalog route with its method, security and request schemas', () => {
    for (const route of catalog.routes) {
      const operation = (document.paths as Record<string, Record<string, any>>)[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.security).toEqual(route.auth === 'public' ? [] : route.auth === 'jwt' ? [{ bearerAuth: [] }] : [{ bearerAuth: [] }, { apiKey: [] }]);
      for (const name of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect(operation.parameters.some((p: { name: string; in: string }) => p.name === name && p.in === 'path'), `${route.id} path ${name}`).toBe(true);
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
});
