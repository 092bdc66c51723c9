import { request } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { TELEMETRY_MAX_BODY_BYTES } from '#shared/schemas/route-schemas.ts';
import { bodyBudget } from '../../infra/local/body-budget.ts';
import { type ApiServer, createApiServer } from '../../infra/local/http-server.ts';
import { createInvoker, httpFunction, type Invoke } from '../../infra/local/lambda.ts';
import { listen } from '../../infra/local/servers.ts';

/**
 * The local server's budget for request bodies (infra/local/body-budget.ts): a burst of large
 * requests is handled a few at a time instead of all at once, in the one process of `npm start`.
 */
const KIB = 1024;
const route = () => ({ route: { id: 'test/echo' }, routeKey: 'POST /api/echo' });

interface Gate {
  /** Requests the handler is inside of now, and the most at once so far. */
  inside: number;
  most: number;
  /** Lets every request held inside the handler finish. */
  open(): void;
}

/** A handler that holds each request until the gate opens (or at once, when it is open already). */
function gatedHandler(): { invoke: Invoke; gate: Gate } {
  let waiting: (() => void)[] = [];
  let opened = false;
  const gate: Gate = {
    inside: 0,
    most: 0,
    open() {
      opened = true;
      for (const go of waiting) go();
      waiting = [];
    },
  };
  const invoke: Invoke = async (_fn, event) => {
    gate.inside++;
    gate.most = Math.max(gate.most, gate.inside);
    if (!opened) await new Promise<void>((resolve) => waiting.push(resolve));
    gate.inside--;
    const body = (event as APIGatewayProxyEventV2).body ?? '';
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bytes: body.length }) };
  };
  return { invoke, gate };
}

let api: ApiServer | undefined;
afterEach(async () => {
  await api?.shutdown();
  api = undefined;
});

async function serve(invoke: Invoke, budgetBytes: number, waitMs = 30_000, log: (line: string) => void = () => undefined): Promise<number> {
  api = createApiServer(route, invoke, log, undefined, bodyBudget(budgetBytes, waitMs));
  return listen(api.server, 0, '127.0.0.1');
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own; `abortAfterMs` closes it that long after sending it. */
function send(
  port: number,
  method: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  abortAfterMs?: number,
  chunk?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = { ...(body || chunk ? { 'content-type': 'application/json' } : {}), ...headers };
    const req = request({ host: '127.0.0.1', port, method, path: '/api/echo', agent: false, headers: sent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(new Error('aborted by the test')), abortAfterMs);
    // A chunk written before the end goes out in chunked encoding, with no length declared.
    if (chunk) req.write(chunk);
    req.end(body);
  });
}

/** A request that declares `declaredBytes` of body, sends `sentBytes` of them and goes away `abortAfterMs` later. */
function sendPart(port: number, declaredBytes: number, sentBytes: number, abortAfterMs: number): Promise<Answer> {
  return new Promise((_resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/echo', agent: false, headers: { 'content-length': declaredBytes } });
    req.on('error', reject);
    req.write('x'.repeat(sentBytes));
    setTimeout(() => req.destroy(new Error('aborted by the test')), abortAfterMs);
  });
}

const bodyOf = (bytes: number) => JSON.stringify({ text: 'x'.repeat(bytes - 11) });
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("the local server's budget for request bodies", () => {
  it('handles a burst of large requests a few at a time, and answers every one', async () => {
    const { invoke, gate } = gatedHandler();
    // Room for two bodies of 200 KB, not three.
    const port = await serve(invoke, 512 * KIB);
    const answers = Array.from({ length: 6 }, () => send(port, 'POST', bodyOf(200 * KIB)));
    await until(() => gate.inside === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gate.inside).toBe(2);
    gate.open();
    const done = await Promise.all(answers);
    expect(done.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(done.map((a) => JSON.parse(a.body).bytes)).toEqual(Array(6).fill(200 * KIB));
    expect(gate.most).toBe(2);
  });

  it('never holds back a request without a body, and takes one larger than the budget alone', async () => {
    const { invoke, gate } = gatedHandler();
    const port = await serve(invoke, 256 * KIB);
    const large = send(port, 'POST', bodyOf(1024 * KIB));
    await until(() => gate.inside === 1);
    // The budget is spent on the large body; a GET has nothing to hold.
    const get = send(port, 'GET');
    await until(() => gate.inside === 2);
    gate.open();
    expect((await large).status).toBe(200);
    expect((await get).status).toBe(200);
  });

  it('lets a small body go ahead of a large one waiting: a burst of large batches does not hold the console back', async () => {
    const { invoke, gate } = gatedHandler();
    // Room for one body of 200 KB and one of 10 KB.
    const port = await serve(invoke, 320 * KIB);
    const first = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    const second = send(port, 'POST', bodyOf(200 * KIB));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const small = send(port, 'POST', bodyOf(10 * KIB));
    await until(() => gate.inside === 2);
    gate.open();
    expect((await Promise.all([first, second, small])).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(gate.most).toBe(2);
  });

  it('counts a chunked body of unknown length as the most a telemetry route takes', async () => {
    const { invoke, gate } = gatedHandler();
    // Room for two such bodies, not three.
    const port = await serve(invoke, 2 * TELEMETRY_MAX_BODY_BYTES + 512 * KIB);
    const chunked = () => send(port, 'POST', undefined, { 'transfer-encoding': 'chunked' }, undefined, bodyOf(100 * KIB));
    const answers = [chunked(), chunked(), chunked()];
    await until(() => gate.inside === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gate.inside).toBe(2);
    gate.open();
    expect((await Promise.all(answers)).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(gate.most).toBe(2);
  });

  it('counts a gzip body as what it may decompress to, the most a telemetry route takes', async () => {
    const { invoke, gate } = gatedHandler();
    const port = await serve(invoke, TELEMETRY_MAX_BODY_BYTES + 512 * KIB);
    // Room for a plain body of 200 KB and one gzip body of a few KB, not two gzip bodies.
    const plain = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    const zipped = gzipSync(bodyOf(200 * KIB));
    const answers = Array.from({ length: 3 }, () => send(port, 'POST', zipped, { 'content-encoding': 'gzip' }));
    await until(() => gate.inside === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gate.inside).toBe(2);
    gate.open();
    expect((await Promise.all([plain, ...answers])).map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(gate.most).toBe(2);
  });

  it('answers 503 with Retry-After, in the error envelope, to a request that waited too long', async () => {
    const { invoke, gate } = gatedHandler();
    const port = await serve(invoke, 256 * KIB, 200);
    const first = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    const late = await send(port, 'POST', bodyOf(200 * KIB));
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('5');
    expect(late.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(late.body)).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.stringMatching(/retry/) } });
    gate.open();
    expect((await first).status).toBe(200);
    // The request that timed out left nothing held behind it.
    expect((await send(port, 'POST', bodyOf(200 * KIB))).status).toBe(200);
  });

  it('gives back the share of a client that went away while it waited', async () => {
    const { invoke, gate } = gatedHandler();
    const port = await serve(invoke, 256 * KIB);
    const first = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    // Gone with its whole body sent (the server reads it once admitted) and with a part of it only (the server sees it go).
    await expect(send(port, 'POST', bodyOf(200 * KIB), {}, 50)).rejects.toThrow('aborted by the test');
    await expect(sendPart(port, 200 * KIB, 10 * KIB, 50)).rejects.toThrow('aborted by the test');
    gate.open();
    expect((await first).status).toBe(200);
    // Had the gone client's share been kept, this one would wait for ever.
    expect((await send(port, 'POST', bodyOf(200 * KIB))).status).toBe(200);
    expect(gate.most).toBe(1);
  });

  it('answers the requests still waiting 503 as soon as the server begins to stop, and the ones in hand as usual', async () => {
    const { invoke, gate } = gatedHandler();
    // A wait far longer than the test may take: only the stop can refuse it in time.
    const port = await serve(invoke, 256 * KIB, 600_000);
    const first = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    const waiting = send(port, 'POST', bodyOf(200 * KIB));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = api!.shutdown();
    api = undefined;
    const refused = await waiting;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    expect(gate.inside).toBe(1);
    gate.open();
    expect((await first).status).toBe(200);
    await stopped;
    expect(gate.most).toBe(1);
  });

  it('refuses at once, once the server is stopping, a request that would have to wait and whose headers were still arriving', async () => {
    const { invoke, gate } = gatedHandler();
    // A wait far longer than the test may take: only the stop can refuse it in time.
    const port = await serve(invoke, 256 * KIB, 600_000);
    const first = send(port, 'POST', bodyOf(200 * KIB));
    await until(() => gate.inside === 1);
    // A connection whose request has begun (so the stop does not close it as idle), its headers unfinished.
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = bodyOf(200 * KIB);
    socket.write('POST /api/echo HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = api!.shutdown();
    api = undefined;
    socket.write(`content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(gate.inside).toBe(1);
    gate.open();
    expect((await first).status).toBe(200);
    await stopped;
    expect(gate.most).toBe(1);
  });

  it('keeps the share of a request answered at its timeout until its handler has ended', async () => {
    const { invoke: gated, gate } = gatedHandler();
    // The real invoker, with a timeout of 100 ms instead of API Gateway's 29 s; the handler goes on past it.
    const invoker = createInvoker(async () => ({ handler: (event: unknown) => gated(httpFunction(route().route), event) }));
    const logged: string[] = [];
    const port = await serve(
      (fn, event) => invoker({ ...fn, timeoutMs: 100 }, event),
      256 * KIB,
      undefined,
      (line) => logged.push(line),
    );
    const first = await send(port, 'POST', bodyOf(200 * KIB));
    expect(first.status).toBe(500);
    expect(gate.inside).toBe(1);
    expect(logged.join('\n')).toMatch(/its handler runs on, and its body's share of the budget is held until it ends/);
    // The abandoned handler still holds its body: the next waits for it, and goes in once it has ended.
    const next = send(port, 'POST', bodyOf(200 * KIB));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gate.inside).toBe(1);
    gate.open();
    await until(() => gate.inside === 0);
    expect(gate.most).toBe(1);
    // The second handler ran after the gate opened: it is held no more and finishes within its timeout.
    expect((await next).status).toBe(200);
    expect(logged.join('\n')).toMatch(/the handler answered at its timeout ended \d+ ms later/);
  });
});
