import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { catalog } from '#shared/catalog.ts';
import { type LocalServiceOptions, startLocalService } from '../../infra/local/runtime.ts';
import { assertDocumentedResponse } from './response-contract.ts';
import { assertSecurityHeaders } from './response-headers.ts';

/** A message the service sent, as the local outbox keeps it. */
export interface OutboxMessage {
  channel: 'email' | 'sms';
  to: string;
  subject?: string;
  text: string;
  createdAt: string;
}

export interface ApiRequest {
  /** Sent as JSON (with Content-Type: application/json). */
  body?: unknown;
  /** Sent as it is, with whatever `headers` say. */
  rawBody?: string | Uint8Array;
  /** A bearer token for Authorization. */
  token?: string;
  apiKey?: string;
  /** Extra headers; undefined values are left out. */
  headers?: Record<string, string | undefined>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: any;
}

/**
 * The local runtime for end-to-end tests: in memory, on a free port, quiet. Serving the service's own
 * catalog, every success answer `api()` receives is checked against the route's documented response.
 */
export async function startTestService(overrides: Omit<LocalServiceOptions, 'port'> = {}) {
  const service = await startLocalService({ log: () => {}, ...overrides, port: 0 });
  const servesOwnCatalog = overrides.catalog === undefined || overrides.catalog === catalog;

  async function api(method: string, path: string, request: ApiRequest = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(request.token !== undefined ? { authorization: `Bearer ${request.token}` } : {}),
      ...(request.apiKey !== undefined ? { 'x-api-key': request.apiKey } : {}),
    };
    for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== undefined) headers[name] = value;
    const body = request.body !== undefined ? JSON.stringify(request.body) : request.rawBody;
    const url = new URL(`${service.baseUrl}${path}`);
    const res = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const contentType = res.headers.get('content-type');
    const isJson = /json/i.test(contentType ?? '') && text !== '';
    const response = { status: res.status, headers: res.headers, body: isJson ? JSON.parse(text) : text };
    if (servesOwnCatalog) {
      assertDocumentedResponse(method, url.pathname, { status: response.status, contentType, body: response.body });
      assertSecurityHeaders(method, url.pathname, response.status, response.headers);
    }
    return response;
  }

  /** Registers an account and creates an API key for it, the usual start of a test; throws if either is refused. */
  async function signUp(email: string): Promise<{ token: string; apiKey: string; keyId: string }> {
    const registered = await api('POST', '/auth/register', { body: { email, password: 'password-123', firstName: 'Test', lastName: 'User' } });
    if (registered.status !== 201) throw new Error(`registering ${email} answered ${registered.status}`);
    const token = registered.body.data.accessToken as string;
    const created = await api('POST', '/keys', { token, body: { name: 'test' } });
    if (created.status !== 201) throw new Error(`creating an API key for ${email} answered ${created.status}`);
    return { token, apiKey: created.body.data.key as string, keyId: created.body.data.id as string };
  }

  /** Every message in the outbox, oldest first (file names start with the time). */
  async function readOutbox(): Promise<OutboxMessage[]> {
    const files = (await readdir(service.outboxDir)).filter((f) => f.endsWith('.json')).sort();
    const messages = await Promise.all(files.map((f) => readMessage(join(service.outboxDir, f))));
    return messages.filter((m) => m !== undefined);
  }

  /** The first outbox message matching `predicate`, once there is one; rejects after `timeoutMs`. */
  async function waitForOutbox(predicate: (message: OutboxMessage) => boolean, timeoutMs = 5000): Promise<OutboxMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await readOutbox()).find(predicate);
      if (found) return found;
      if (Date.now() >= deadline) throw new Error(`no outbox message matched within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return { ...service, api, signUp, readOutbox, waitForOutbox };
}

/** A message file, or undefined while it is still being written. */
async function readMessage(file: string): Promise<OutboxMessage | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as OutboxMessage;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

export type TestService = Awaited<ReturnType<typeof startTestService>>;
