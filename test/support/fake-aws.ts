import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect } from 'vitest';

export const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-example' };

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}
/** A reply, one made from the request, or none at all ('hang'). */
export type Answer = Reply | ((request: Received) => Reply) | 'hang';

/** Plays an AWS service on loopback: records each request and gives the next scripted answer (the last one repeats). */
export class FakeAwsService {
  readonly received: Received[] = [];
  answers: Answer[] = [];
  private server!: Server;
  endpoint!: URL;

  constructor(private readonly contentType: string) {}

  async start(): Promise<void> {
    this.received.length = 0;
    this.answers = [];
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(request);
        const answer = this.answers[Math.min(this.received.length, this.answers.length) - 1]!;
        if (answer === 'hang') return;
        const reply = typeof answer === 'function' ? answer(request) : answer;
        res.writeHead(reply.status, { 'content-type': this.contentType, ...reply.headers }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.endpoint = new URL(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A fake service on its own port for each test of the enclosing suite, with nothing received or scripted at the start. */
export function fakeAwsService(contentType: string): FakeAwsService {
  const fake = new FakeAwsService(contentType);
  beforeEach(() => fake.start());
  afterEach(() => fake.stop());
  return fake;
}

/** Recomputes a received request's signature from what arrived: it verifies only if nothing signed changed on the way. */
export async function verifySignature(request: Received, { service, region }: { service: string; region: string }): Promise<void> {
  const authorization = String(request.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
  const date = String(request.headers['x-amz-date']);
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const signer = new SignatureV4({ service, region, credentials: CREDENTIALS, sha256: Sha256, applyChecksum: false });
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(request.headers[name])]));
  const url = new URL(request.path, 'http://127.0.0.1');
  const resigned = await signer.sign({ method: request.method, protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: request.body }, { signingDate });
  expect(resigned.headers['authorization']).toBe(authorization);
}

/**
 * Compares our request with the SDK client's for the same operation, both received by the fake: method,
 * path, JSON body, the given headers and the signature's scope and signed headers (ours a subset).
 */
export function expectSameRequest(ours: Received, theirs: Received, { headers, scope }: { headers: readonly string[]; scope: RegExp }): void {
  expect(ours.method).toBe(theirs.method);
  expect(ours.path).toBe(theirs.path);
  expect(JSON.parse(ours.body)).toEqual(JSON.parse(theirs.body));
  for (const header of headers) expect(ours.headers[header], header).toBe(theirs.headers[header]);
  const scopeOf = (r: Received) => /Credential=([^,]+)/.exec(String(r.headers.authorization))![1];
  expect(scopeOf(ours)).toBe(scopeOf(theirs));
  expect(scopeOf(ours)).toMatch(scope);
  const signed = (r: Received) => /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))![1]!.split(';');
  expect(signed(theirs)).toEqual(expect.arrayContaining(signed(ours)));
}
