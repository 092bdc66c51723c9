import createClient, { type Middleware } from 'openapi-fetch';
import { session } from '../auth/session';
import { API_BASE_URL } from '../page-table';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

/** An answer of the API that is not a success: its envelope's code, message and details, and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Ids the message refers to (`activeAlertId` on a refused reopen). */
    readonly details: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Requests kept until they are answered, so a request refused for an expired token can be sent again. */
const retryable = new Map<string, Request>();

const authentication: Middleware = {
  onRequest({ request, id }) {
    const token = session.accessToken();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    retryable.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id, schemaPath }) {
    const original = retryable.get(id);
    retryable.delete(id);
    if (response.status !== 401 || !original || schemaPath.startsWith('/auth/')) return response;
    // The access token expired (or the server restarted with another key): refresh once and resend.
    if (!(await session.refresh())) {
      session.signedOut();
      return response;
    }
    original.headers.set('Authorization', `Bearer ${session.accessToken()}`);
    const retried = await fetch(original);
    if (retried.status === 401) session.signedOut();
    return retried;
  },
  onError({ id }) {
    retryable.delete(id);
  },
};

/** The API, typed from its OpenAPI document (src/api/schema.d.ts), on the console's own origin. */
export const api = createClient<paths>({ baseUrl: API_BASE_URL });
api.use(authentication);

type Envelope = { success: true; data: unknown } | { success: false; error: { code: string; message: string; details?: Record<string, string> } };

/** The success body of an answer, or an ApiError carrying the envelope's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const envelope = result.error as Envelope | undefined;
  if (envelope && envelope.success === false) throw new ApiError(result.response.status, envelope.error.code, envelope.error.message, envelope.error.details);
  throw new ApiError(result.response.status, 'INTERNAL_ERROR', `The server answered ${result.response.status}`);
}
