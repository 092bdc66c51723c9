import * as z from 'zod';
import { API_BASE_PATH, routes, type RouteDef } from '../catalog.ts';
import { routeSchemas, type RouteSchemas } from './routes.ts';

type JsonSchema = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const errorCodes = ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED', 'INTERNAL_ERROR'];

const components = {
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  },
  headers: {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per minute in this tier' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window' },
    'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (s) when the window resets' },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['success', 'error'],
      properties: {
        success: { const: false },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { enum: errorCodes }, message: { type: 'string' } },
        },
      },
    },
    Success: {
      type: 'object',
      required: ['success'],
      properties: { success: { const: true }, data: {} },
    },
    Pagination: {
      type: 'object',
      required: ['total', 'limit', 'skip', 'hasMore'],
      properties: {
        total: { type: 'integer' },
        limit: { type: 'integer' },
        skip: { type: 'integer' },
        hasMore: { type: 'boolean' },
      },
    },
  },
};

const rateHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const errorResponse = (description: string) => ({
  description,
  headers: rateHeaders,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function parameters(schemas: RouteSchemas) {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [['query', schemas.query], ['path', schemas.params]] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (object.required ?? []).includes(name), schema: property });
    }
  }
  return out;
}

function operation(route: RouteDef) {
  const schemas: RouteSchemas = routeSchemas[route.id as keyof typeof routeSchemas];
  const security =
    route.auth === 'public' ? [] : route.auth === 'jwt' ? [{ bearerAuth: [] }] : [{ bearerAuth: [] }, { apiKey: [] }];
  return {
    operationId: route.id.replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase()),
    summary: schemas.summary,
    tags: [route.id.split('/')[0]],
    security,
    'x-rate-limit-tier': route.tier,
    parameters: parameters(schemas),
    ...(schemas.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(schemas.body) } } } }
      : {}),
    responses: {
      [route.method === 'POST' && /create|register/.test(route.id) ? '201' : '200']: {
        description: 'Success',
        headers: rateHeaders,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } },
      },
      '400': errorResponse('VALIDATION_ERROR: the message names the offending field'),
      ...(route.auth === 'public' ? {} : { '401': errorResponse('UNAUTHORIZED'), '403': errorResponse('FORBIDDEN') }),
      '404': errorResponse('NOT_FOUND'),
      '429': errorResponse('RATE_LIMITED; see Retry-After'),
      '500': errorResponse('INTERNAL_ERROR'),
    },
  };
}

/** The OpenAPI 3.1 document of every catalog route, built from the same zod schemas that validate requests. */
export function openApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Observability Service',
      version: '0.1.0',
      description: 'Traces, alerts, analytics and behavioural profiles for AI agents.',
    },
    servers: [{ url: serverUrl.endsWith(API_BASE_PATH) ? serverUrl : `${serverUrl}${API_BASE_PATH}` }],
    paths,
    components,
  };
}
