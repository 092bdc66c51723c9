import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { mayPassLater } from '../aws-errors.ts';
import type { RouteId } from '../catalog.ts';
import { config } from '../config.ts';
import { AppError, RateLimitedError, ServiceUnavailableError, ValidationError } from '../domain/errors.ts';
import { leaveOutTooDeep } from '../domain/nesting.ts';
import { decide, rateLimitHeaders, WINDOW_SECONDS, windowStart } from '../domain/rate-limit.ts';
import type { Ports, Store } from '../domain/store.ts';
import { observability } from '../observability/handler.ts';
import { logger, thrown } from '../observability/logger.ts';
import { type AreaRoute, DEFAULT_MAX_BODY_BYTES, type RouteRef, type RouteSchemas } from '../schemas/route-schemas.ts';
import { apiKeyRateSubject, authenticate, type CredentialPorts, type Principal, rateLimitSubject } from './auth.ts';
import { jsonBody } from './body.ts';
import { clientAddress } from './client-address.ts';
import { type Reply, raw } from './reply.ts';
import { RESPONSE_SECURITY_HEADERS } from './response-headers.ts';
import { parseOrThrow, refuseRepeatedParameters, refuseUnknownParameters, refuseUnstorable } from './validation.ts';

type Schema = z.ZodMiniType;
type Parsed<S extends Schema | undefined> = S extends Schema ? z.infer<S> : undefined;

export interface RouteRequest<S extends RouteSchemas> {
  body: Parsed<S['body']>;
  query: Parsed<S['query']>;
  params: Parsed<S['params']>;
  principal: Principal | undefined;
  requestId: string;
  event: APIGatewayProxyEventV2;
  /** The client's network, for limits per client (see `clientAddress`); looked up once per request. */
  clientAddress: () => Promise<string>;
}

/** The repositories the guard uses (authentication and the rate limit): every route has these. */
export type GuardRepository = 'apiKeys' | 'users' | 'tenants' | 'rateLimits';

/** The ports of a route: the guard's, the repositories the route names (K) and its other adapters (E); `shared/wiring` makes the real ones. */
export type RoutePorts<K extends keyof Store = never, E extends object = object> = Ports<K | GuardRepository> & CredentialPorts & E;

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** What the middlewares learn about a request, shared between them. */
interface RequestState {
  startedAt: number;
  requestId: string;
  principal?: Principal;
  headers: Record<string, string>;
  input?: { body: unknown; query: unknown; params: unknown };
  client?: Promise<string>;
}
type MiddyRequest = { event: Event; context: Context; response: Result | null; error: unknown };

/** Per-invocation state, keyed by the event object so nothing leaks between invocations. */
const states = new WeakMap<Event, RequestState>();
function stateOf(event: Event): RequestState {
  const state = states.get(event);
  if (!state) throw new Error('request state missing: the envelope middleware must run first');
  return state;
}
/** The request's `clientAddress`, resolved at most once. */
function clientOf(event: Event, originSecret: CredentialPorts['originSecret']): () => Promise<string> {
  const state = stateOf(event);
  return () => (state.client ??= clientAddress(event, originSecret));
}

function startState(event: Event, context: Context): RequestState {
  const state: RequestState = {
    startedAt: Date.now(),
    requestId: event.requestContext?.requestId ?? context.awsRequestId,
    headers: {},
  };
  states.set(event, state);
  return state;
}

const INTERNAL_ERROR_BODY = { success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } };

function toResult(reply: Reply, state: RequestState): Result {
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': state.requestId,
    'Access-Control-Allow-Origin': config.corsAllowOrigins,
    ...RESPONSE_SECURITY_HEADERS,
    ...state.headers,
    ...reply.headers,
  };
  // The local runtime streams the file (`localFile`); API Gateway never sees such a result (see fileAttachment).
  if (reply.file) return { statusCode: reply.status, headers, body: '', localFile: reply.file } as Result;
  if (reply.encoded && Buffer.isBuffer(reply.body)) {
    return { statusCode: reply.status, headers, body: reply.body.toString('base64'), isBase64Encoded: true };
  }
  const body = reply.encoded ? String(reply.body) : JSON.stringify(reply.body);
  return { statusCode: reply.status, headers, body };
}

/** Request id, access log, the success envelope, and every error mapped to the spec's envelope by type. */
function envelope(routeId: string): MiddlewareObj<Event, Result, Error, Context> {
  const finish = (request: MiddyRequest, reply: Reply) => {
    const state = states.get(request.event) ?? startState(request.event, request.context);
    request.response = toResult(reply, state);
    logger.info('request', {
      requestId: state.requestId,
      route: routeId,
      method: request.event.requestContext?.http?.method,
      status: reply.status,
      latencyMs: Date.now() - state.startedAt,
      tenantId: state.principal?.tenantId,
      credential: state.principal?.kind,
    });
  };
  return {
    before: (request) => {
      const state = startState(request.event, request.context);
      logger.resetKeys();
      logger.appendKeys({ requestId: state.requestId, route: routeId });
      logger.setCorrelationId(state.requestId);
    },
    after: (request) => finish(request, request.response as unknown as Reply),
    onError: (request) => {
      // An AWS call that failed after the SDK's retries in a way a later try may pass (throttling, a
      // server-side or network failure) is a dependency's outage too: 503, to retry.
      const err = mayPassLater(request.error) ? new ServiceUnavailableError(undefined, { cause: request.error }) : request.error;
      if (err instanceof ServiceUnavailableError) {
        const body = { success: false, error: { code: err.code, message: err.message } };
        logger.error('dependency unavailable', { cause: err.cause instanceof Error ? err.cause.message : undefined });
        return finish(request, raw(err.status, body, { 'Retry-After': String(err.retryAfterSeconds) }));
      }
      if (err instanceof RateLimitedError) {
        const body = { success: false, error: { code: err.code, message: err.message } };
        return finish(request, raw(err.status, body, { 'Retry-After': String(err.retryAfterSeconds) }));
      }
      if (err instanceof AppError) {
        return finish(
          request,
          raw(err.status, { success: false, error: { code: err.code, message: err.message, ...(err.details && { details: err.details }) } }),
        );
      }
      logger.error('unhandled error', thrown(err));
      finish(request, raw(500, INTERNAL_ERROR_BODY));
    },
  };
}

/**
 * Authentication and the per-credential rate limit in one step, because a refused credential must
 * still be counted (against the client address) and still see the rate-limit headers. An API key's
 * request is counted while its key is looked up (one round trip, not two): its bucket is known from
 * the key presented (`apiKeyRateSubject`); a refused one is then counted against the address too.
 */
function guard(route: RouteRef, getPorts: () => RoutePorts): MiddlewareObj<Event, Result, Error, Context> {
  return {
    before: async (request) => {
      const state = stateOf(request.event);
      const ports = getPorts();
      const nowMs = ports.clock.now().getTime();
      const start = windowStart(nowMs);
      const count = (subject: string) => ports.store.rateLimits.hit(subject, route.tier, start, WINDOW_SECONDS);
      const keySubject = await apiKeyRateSubject(request.event, route.auth, ports.signing);
      // Both settle before anything is thrown, so that no write of either runs on after the answer.
      const [authenticated, keyCount] = await Promise.allSettled([
        authenticate(request.event, route.auth, ports),
        keySubject === undefined ? undefined : count(keySubject),
      ]);
      if (keyCount.status === 'rejected') throw keyCount.reason;
      if (authenticated.status === 'rejected' && !(authenticated.reason instanceof AppError)) throw authenticated.reason;
      const principal = authenticated.status === 'fulfilled' ? authenticated.value : undefined;
      let hits: number;
      if (principal?.kind === 'apiKey') {
        // apiKeyRateSubject names a bucket for exactly the requests an API key can authenticate.
        if (keyCount.value === undefined) throw new Error('an API key authenticated a request it was not counted for');
        hits = keyCount.value;
      } else {
        hits = await count(await rateLimitSubject(principal, clientOf(request.event, ports.originSecret)));
      }
      const decision = decide(hits, config.rateLimits[route.tier], start);
      Object.assign(state.headers, rateLimitHeaders(decision));
      if (!decision.allowed) throw new RateLimitedError(Math.max(1, decision.reset - Math.floor(nowMs / 1000)));
      if (authenticated.status === 'rejected') throw authenticated.reason;
      if (principal) {
        state.principal = principal;
        logger.appendKeys({ tenantId: principal.tenantId });
      }
    },
  };
}

/** JSON body parsing and zod validation of body, query string and path parameters. */
function validate(schemas: Partial<RouteSchemas>): MiddlewareObj<Event, Result, Error, Context> {
  return {
    before: (request) => {
      const event = request.event;
      let body: unknown;
      if (schemas.body) {
        body = jsonBody(event, schemas.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        if (body === undefined) throw new ValidationError('A JSON request body is required');
        if (schemas.convertsUnstorableValues) body = leaveOutTooDeep(body);
        else refuseUnstorable(body);
        body = parseOrThrow(schemas.body, body, 'body');
      }
      if (schemas.query) {
        refuseRepeatedParameters(event.rawQueryString);
        refuseUnknownParameters(schemas.query, event.queryStringParameters ?? {});
      }
      const query = schemas.query ? parseOrThrow(schemas.query, event.queryStringParameters ?? {}, 'query') : undefined;
      const params = schemas.params ? parseOrThrow(schemas.params, event.pathParameters ?? {}, 'path') : undefined;
      stateOf(event).input = { body, query, params };
    },
  };
}

/**
 * One HTTP route: its area's table in `shared/schemas/routes/` holds its catalog row (auth mode,
 * rate tier) and its input schemas (e.g. `httpRoute('keys/list', keysRoutes, …)`: a table without
 * the id does not compile); `getPorts` gives the ports (`routePorts(…)` of `shared/wiring` in the
 * handler module, fakes in tests) and `impl` gets the validated input and those ports. Every route runs the same middy stack.
 */
export function httpRoute<R extends RouteId, T extends Readonly<Record<R, AreaRoute>>, P extends RoutePorts>(
  routeId: R,
  areaSchemas: T,
  getPorts: () => P,
  impl: (request: RouteRequest<T[R]>, ports: P) => Promise<Reply>,
) {
  const schemas: AreaRoute = areaSchemas[routeId];
  const { route } = schemas;
  return middy<Event, Result, Error, Context>()
    .use(observability())
    .use(envelope(route.id))
    .use(guard(route, getPorts))
    .use(validate(schemas))
    .handler(async (event) => {
      const state = stateOf(event);
      const input = state.input ?? { body: undefined, query: undefined, params: undefined };
      const ports = getPorts();
      const reply = await impl(
        {
          body: input.body as Parsed<T[R]['body']>,
          query: input.query as Parsed<T[R]['query']>,
          params: input.params as Parsed<T[R]['params']>,
          principal: state.principal,
          requestId: state.requestId,
          event,
          clientAddress: clientOf(event, ports.originSecret),
        },
        ports,
      );
      // The envelope middleware's `after` turns the Reply into the API Gateway result.
      return reply as unknown as Result;
    });
}
