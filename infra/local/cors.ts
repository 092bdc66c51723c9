import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { RESPONSE_SECURITY_HEADERS } from '#shared/http/response-headers.ts';
import type { HttpResponse } from './api-gateway.ts';

/**
 * The API's CORS configuration, applied the way API Gateway applies its own: it answers preflight
 * requests itself and sets these headers on every response to a request that has an Origin.
 */
export const CORS = {
  allowOrigin: '*',
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: ['authorization', 'content-type', 'content-encoding', 'x-api-key'],
  /** So that browser dashboards can read the rate-limit state and quote the request id. */
  exposeHeaders: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-request-id'],
} as const;

export const isPreflight = (req: IncomingMessage): boolean => req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

export function preflightResponse(): HttpResponse {
  return {
    statusCode: 204,
    headers: {
      'access-control-allow-origin': CORS.allowOrigin,
      'access-control-allow-methods': CORS.allowMethods.join(','),
      'access-control-allow-headers': CORS.allowHeaders.join(','),
      ...RESPONSE_SECURITY_HEADERS,
    },
    body: Buffer.alloc(0),
  };
}

export function corsResponseHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  if (req.headers.origin === undefined) return {};
  return {
    'access-control-allow-origin': CORS.allowOrigin,
    'access-control-expose-headers': CORS.exposeHeaders.join(','),
  };
}
