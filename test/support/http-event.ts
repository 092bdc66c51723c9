import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** A minimal API Gateway HTTP API (payload 2.0) event for unit tests of handlers. */
export function httpEvent(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; query?: Record<string, string>; params?: Record<string, string>; ip?: string } = {},
): APIGatewayProxyEventV2 {
  const rawQueryString = new URLSearchParams(options.query ?? {}).toString();
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    headers: { 'content-type': 'application/json', ...options.headers },
    queryStringParameters: options.query,
    pathParameters: options.params,
    body: options.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'unit',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: options.ip ?? '203.0.113.9', userAgent: 'vitest' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

export const lambdaContext = {
  awsRequestId: 'unit-request',
  functionName: 'unit',
  callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;
