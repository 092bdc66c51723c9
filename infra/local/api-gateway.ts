import { randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { RESPONSE_SECURITY_HEADERS } from '#shared/http/response-headers.ts';
import { LOCAL_ACCOUNT } from './local-account.ts';
import type { RouteMatch } from './router.ts';

/** API Gateway HTTP APIs refuse larger request bodies. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda refuses a synchronous result larger than this (its JSON, the body a string within it), and
 * API Gateway then answers 500: the local gateway does the same, so an answer too large for AWS fails here too.
 */
export const MAX_RESULT_BYTES = 6 * 1024 * 1024;

/** Whether Lambda would refuse to return this result (see MAX_RESULT_BYTES); a local file is sent apart. */
export const tooLargeForLambda = (result: unknown): boolean =>
  !(isStructured(result) && typeof result.localFile === 'string') && Buffer.byteLength(JSON.stringify(result ?? null)) > MAX_RESULT_BYTES;

const API_ID = 'local';

/** API Gateway's request ids look like `JKJaXmPLvHcESHA=`. */
export const newRequestId = (): string => randomBytes(11).toString('base64');

export function splitUrl(url = '/'): { rawPath: string; rawQueryString: string } {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? { rawPath: url, rawQueryString: '' } : { rawPath: url.slice(0, queryStart), rawQueryString: url.slice(queryStart + 1) };
}

/** The API Gateway HTTP API payload format 2.0 event for a request whose body has been read. */
export function toHttpApiEvent(req: IncomingMessage, body: Buffer, match: RouteMatch, requestId: string, now = new Date()): APIGatewayProxyEventV2 {
  const { rawPath, rawQueryString } = splitUrl(req.url);
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const headers = gatewayHeaders(req, sourceIp, now);
  const cookies = cookiesOf(req);
  const query = queryParameters(rawQueryString);
  const domainName = headers.host ?? '127.0.0.1';
  return {
    version: '2.0',
    routeKey: match.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    ...(match.pathParameters ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT.accountId,
      apiId: API_ID,
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method: req.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.routeKey,
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...encodeBody(body, headers),
  };
}

/**
 * Lower-cased, repeated headers joined with commas, cookies moved to `cookies`, plus the headers API
 * Gateway adds on its way to the integration.
 */
function gatewayHeaders(req: IncomingMessage, sourceIp: string, now: Date): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (name !== 'cookie' && values) headers[name] = values.join(',');
  }
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
  headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= traceId(now);
  return headers;
}

function cookiesOf(req: IncomingMessage): string[] {
  return (req.headersDistinct.cookie ?? [])
    .flatMap((line) => line.split(';'))
    .map((cookie) => cookie.trim())
    .filter((cookie) => cookie !== '');
}

/** Decoded query parameters; a repeated name's values joined with commas, as API Gateway does. */
function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  }
  return parameters;
}

function encodeBody(body: Buffer, headers: Record<string, string>): Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'> {
  if (body.length === 0) return { isBase64Encoded: false };
  const encoded = headers['content-encoding'] !== undefined && headers['content-encoding'].trim().toLowerCase() !== 'identity';
  return !encoded && isTextual(headers['content-type'])
    ? { body: body.toString('utf8'), isBase64Encoded: false }
    : { body: body.toString('base64'), isBase64Encoded: true };
}

/** Media types API Gateway hands over as text; everything else arrives base64-encoded. */
function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || /^application\/(json|xml|javascript|x-www-form-urlencoded|graphql)$/.test(type) || /\+(json|xml)$/.test(type);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the format of `requestContext.time`. */
function clfTime(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}`;
  return `${date}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

const traceId = (now: Date) => `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

export interface HttpResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /** A file to send as the body instead, streamed (a local export's download). */
  file?: string;
}

type HandlerResult = APIGatewayProxyStructuredResultV2 & {
  multiValueHeaders?: Record<string, Array<string | number | boolean>>;
  /** Not API Gateway's: a handler of the local runtime may name a file to stream (shared/http/reply.ts, fileAttachment). */
  localFile?: string;
};

/**
 * What API Gateway sends back for a handler's result: a structured result (it has a statusCode) as
 * given; anything else becomes a 200 JSON response, a string verbatim, other values serialised.
 */
export function fromHandlerResult(result: unknown): HttpResponse {
  if (!isStructured(result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body, 'utf8') };
  }
  const headers: Record<string, string[]> = {};
  const add = (name: string, value: string | number | boolean) => (headers[name.toLowerCase()] ??= []).push(String(value));
  for (const [name, value] of Object.entries(result.headers ?? {})) add(name, value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) for (const v of values) add(name, v);
  for (const cookie of result.cookies ?? []) add('set-cookie', cookie);
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode: result.statusCode ?? 200, headers, body, ...(typeof result.localFile === 'string' && { file: result.localFile }) };
}

const isStructured = (result: unknown): result is HandlerResult => typeof result === 'object' && result !== null && 'statusCode' in result;

export function envelopeResponse(statusCode: number, code: string, message: string): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...RESPONSE_SECURITY_HEADERS },
    body: Buffer.from(JSON.stringify({ success: false, error: { code, message } })),
  };
}
