import * as z from 'zod';
import { type RouteDef, routes } from '../catalog.ts';
import { type RouteResponse, responseComponents, routeResponses } from './responses.ts';
import type { RouteSchemas } from './route-schemas.ts';
import { routeSchemas } from './routes.ts';

type JsonSchema = Record<string, unknown>;
type Route = (typeof routes)[number];

const jsonSchema = (schema: z.core.$ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const operationId = (route: Route) => route.id.replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase());
const responseSchemaName = (route: Route) => `${operationId(route).replace(/^\w/, (c) => c.toUpperCase())}Response`;
const schemaRef = (name: string) => `#/components/schemas/${name}`;

/**
 * Every response schema the document names in `components.schemas`: the shared ones, then each
 * route's success body. Named schemas refer to each other by `$ref`, so a shared object is described once.
 */
const namedResponses = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(responseComponents)) namedResponses.add(schema, { id });
for (const route of routes) {
  const { body } = routeResponses[route.id];
  if (!namedResponses.has(body)) namedResponses.add(body, { id: responseSchemaName(route) });
}

function responseSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(namedResponses, {
    io: 'output',
    uri: schemaRef,
    // `format: date-time` says it; zod's long pattern for the same format would repeat at every timestamp.
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
    },
  });
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _dialect, $id: _id, ...schema }]) => [name, schema]));
}

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
  schemas: responseSchemas(),
};

const rateHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const errorResponse = (description: string) => ({
  description,
  headers: rateHeaders,
  content: { 'application/json': { schema: { $ref: schemaRef('Error' satisfies keyof typeof responseComponents) } } },
});

function parameters(schemas: RouteSchemas) {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['query', schemas.query],
    ['path', schemas.params],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (object.required ?? []).includes(name), schema: property });
    }
  }
  return out;
}

function successResponse(route: Route) {
  const response: RouteResponse = routeResponses[route.id];
  const { id } = namedResponses.get(response.body)!;
  if (response.file) {
    return {
      [response.status]: {
        description: 'The file, as an attachment',
        headers: rateHeaders,
        content: Object.fromEntries(response.file.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
      },
      '302': { description: 'On AWS: a redirect to the file in S3 (a presigned URL valid one hour)', headers: rateHeaders },
    };
  }
  return {
    [response.status]: {
      description: 'Success',
      headers: rateHeaders,
      content: {
        'application/json': { schema: { $ref: schemaRef(id) } },
        ...(response.protobufMessage
          ? { 'application/x-protobuf': { schema: { description: `${response.protobufMessage}, protobuf-encoded; answered when the request was protobuf` } } }
          : {}),
      },
    },
  };
}

function operation(route: Route) {
  const schemas: RouteSchemas = routeSchemas[route.id];
  const security = route.auth === 'public' ? [] : route.auth === 'jwt' ? [{ bearerAuth: [] }] : [{ bearerAuth: [] }, { apiKey: [] }];
  return {
    operationId: operationId(route),
    summary: schemas.summary,
    tags: [route.id.split('/')[0]],
    security,
    'x-rate-limit-tier': route.tier,
    parameters: parameters(schemas),
    ...(schemas.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(schemas.body) } } } } : {}),
    ...(schemas.rawBody ? { requestBody: { content: Object.fromEntries(schemas.rawBody.contentTypes.map((type) => [type, {}])) } } : {}),
    responses: {
      ...successResponse(route),
      '400': errorResponse('VALIDATION_ERROR: the message names the offending field'),
      ...(route.auth === 'public' ? {} : { '401': errorResponse('UNAUTHORIZED'), '403': errorResponse('FORBIDDEN') }),
      '404': errorResponse('NOT_FOUND'),
      '429': errorResponse('RATE_LIMITED; see Retry-After'),
      '500': errorResponse('INTERNAL_ERROR'),
      // What the ingest queue takes is stored at least once: when it cannot take it, nothing changed.
      ...((route as RouteDef).sendsTo?.some((queue) => queue === 'ingest' || queue === 'lake')
        ? { '503': errorResponse('INTERNAL_ERROR with status 503: the queue is unavailable and nothing was changed; retry after Retry-After') }
        : {}),
    },
  };
}

/** The OpenAPI document apart from `servers`, which depends on where the service answers. */
export interface ApiDescription {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

/**
 * The OpenAPI 3.1 description of every catalog route, built from the zod schemas that validate requests
 * and from those of the responses, which the end-to-end tests hold every answer to. It lacks only
 * `servers` (`withServer` in shared/http/openapi-document.ts).
 */
export function apiDescription(): ApiDescription {
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
    paths,
    components,
  };
}
