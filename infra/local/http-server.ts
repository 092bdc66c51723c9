import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  envelopeResponse,
  fromHandlerResult,
  type HttpResponse,
  MAX_BODY_BYTES,
  MAX_RESULT_BYTES,
  newRequestId,
  splitUrl,
  toHttpApiEvent,
  tooLargeForLambda,
} from './api-gateway.ts';
import { type BodyBudget, BodyBudgetRefusal, bodyBudget } from './body-budget.ts';
import { type ConsoleSite, isConsoleRequest } from './console-site.ts';
import { corsResponseHeaders, isPreflight, preflightResponse } from './cors.ts';
import { httpFunction, InvocationTimeout, type Invoke } from './lambda.ts';
import { errorText, type Log } from './log.ts';
import type { RouteMatch } from './router.ts';
import { close } from './servers.ts';

/**
 * How long an idle keep-alive connection stays open (node:http's default: 5 s). A client that keeps
 * its idle connections as long or longer (Playwright's request context, the SDKs' agents, browsers)
 * can send on one just as the server closes it, and gets "socket hang up" for a request the server
 * never saw. Longer than the clients' own, as load balancers are (ALB: 60 s). `server.close()` still
 * closes idle connections at once, so a stop does not wait for them.
 */
const KEEP_ALIVE_MS = 65_000;

export interface ApiServer {
  server: Server;
  /** Stops accepting connections and resolves once every in-flight request has been answered. */
  shutdown(): Promise<void>;
}

/**
 * What API Gateway does in front of the route functions, on a plain node:http server; with a console
 * site, what CloudFront does too: every path outside `/api` is the console's.
 */
export function createApiServer(
  route: (method: string, rawPath: string) => RouteMatch,
  invoke: Invoke,
  log: Log,
  consoleSite?: ConsoleSite,
  budget: BodyBudget = bodyBudget(),
): ApiServer {
  let closing = false;

  async function respond(req: IncomingMessage, requestId: string): Promise<HttpResponse> {
    if (consoleSite && isConsoleRequest(pathOf(req))) return consoleSite(req, pathOf(req));
    if (isPreflight(req)) return preflightResponse();
    let release: () => void;
    try {
      release = await budget.admit(req);
    } catch (err) {
      if (!(err instanceof BodyBudgetRefusal)) throw err;
      log(`[http] ${req.method} ${pathOf(req)} not admitted (${err.message}): answered 503`);
      return busyResponse();
    }
    // A handler abandoned at its timeout still holds the body: its share comes back when it ends.
    let stillRunning: Promise<void> | undefined;
    try {
      return await handleApiRequest(req, requestId, (settled) => {
        stillRunning = settled;
      });
    } finally {
      if (stillRunning) void stillRunning.then(release);
      else release();
    }
  }

  async function handleApiRequest(req: IncomingMessage, requestId: string, abandoned: (settled: Promise<void>) => void): Promise<HttpResponse> {
    const body = await readBody(req);
    if (!body) return envelopeResponse(413, 'VALIDATION_ERROR', 'Request body exceeds 10 MB');
    const match = route(req.method ?? 'GET', pathOf(req));
    try {
      const result = await invoke(httpFunction(match.route), toHttpApiEvent(req, body, match, requestId));
      if (tooLargeForLambda(result)) {
        log(`[http] ${match.route.id} answered more than Lambda returns (${MAX_RESULT_BYTES} bytes): API Gateway answers 500`);
        return envelopeResponse(500, 'INTERNAL_ERROR', 'Internal server error');
      }
      return fromHandlerResult(result);
    } catch (err) {
      log(`[http] ${match.route.id} failed: ${errorText(err)}`);
      if (err instanceof InvocationTimeout) {
        const since = Date.now();
        log(`[http] ${match.route.id}: its handler runs on, and its body's share of the budget is held until it ends`);
        abandoned(err.settled.then(() => log(`[http] ${match.route.id}: the handler answered at its timeout ended ${Date.now() - since} ms later`)));
      }
      return envelopeResponse(500, 'INTERNAL_ERROR', 'Internal server error');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const startedAt = Date.now();
    const requestId = newRequestId();
    let response: HttpResponse;
    try {
      response = await respond(req, requestId);
    } catch (err) {
      // Only reading the body can fail here: the client went away.
      log(`[http] ${req.method} ${pathOf(req)} aborted: ${errorText(err)}`);
      res.destroy();
      return;
    }
    res.writeHead(response.statusCode, {
      ...response.headers,
      ...corsResponseHeaders(req),
      'apigw-requestid': requestId,
      ...(response.file ? {} : { 'content-length': response.body.length }),
      ...(closing ? { connection: 'close' } : {}),
    });
    if (response.file) {
      // Streamed: an export may be larger than memory. The handler set its length.
      await pipeline(createReadStream(response.file), res).catch((err: unknown) => log(`[http] streaming ${pathOf(req)} stopped: ${errorText(err)}`));
    } else {
      res.end(response.body);
    }
    // The path only: query strings can carry tokens.
    log(`[http] ${req.method} ${pathOf(req)} ${response.statusCode} ${Date.now() - startedAt}ms`);
  }

  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
  // What node:http answers itself (a malformed request, headers past its limit) gets the envelope and
  // the headers of every API answer too; the connection closes, as node does after such an error.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As node does: no answer on a connection that is gone, or in the middle of another answer.
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!socket.writable || answering || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const response = envelopeResponse(status, 'VALIDATION_ERROR', message);
    const head = Object.entries({ ...response.headers, 'content-length': response.body.length, connection: 'close' }).map(
      ([name, value]) => `${name}: ${value}\r\n`,
    );
    socket.end(
      Buffer.concat([Buffer.from(`HTTP/1.1 ${response.statusCode} ${STATUS_CODES[response.statusCode]}\r\n${head.join('')}\r\n`), response.body]),
      () => socket.destroy(),
    );
  });
  return {
    server,
    async shutdown() {
      closing = true;
      // The requests in hand are answered; those still waiting for the budget are told to retry, not held until they time out.
      budget.refuseWaiting();
      await close(server);
    },
  };
}

/** The answers node:http gives these errors of a client's request (any other: 400), with a message. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive'],
};

const pathOf = (req: IncomingMessage): string => splitUrl(req.url).rawPath;

/** What a request that could not be taken in time is answered: the service's 503, to retry later. */
function busyResponse(): HttpResponse {
  const response = envelopeResponse(503, 'INTERNAL_ERROR', 'The service is busy with other requests; retry it (a retry never duplicates data).');
  return { ...response, headers: { ...response.headers, 'retry-after': '5' } };
}

/**
 * The whole body, or undefined when it is larger than API Gateway accepts. An oversized body is
 * still read to its end (and dropped) so that the client gets to see the 413.
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  // A client that went away while its request waited for the budget: its 'close' has been emitted already.
  if (req.destroyed) return Promise.reject(new Error('the client closed the connection before its request was read'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client closed the connection mid-request'));
    });
  });
}
