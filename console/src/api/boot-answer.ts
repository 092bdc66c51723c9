import { apiUrl } from '../first-request';

/** An answer as openapi-fetch gives it: the body as `data` on success, as `error` otherwise. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The answer to the request the boot script sent for the landing page (first-request.ts), when it is
 * the one the console is about to send (`path` and `query` as for openapi-fetch); taken once, by the
 * page load's first request. Undefined otherwise, and for a 401, which the console's own request
 * handles (it renews the sign-in and sends again).
 */
export async function bootAnswer<T>(path: string, query: Record<string, string>): Promise<Answer<T> | undefined> {
  const sent = window.aosBootRequest;
  if (!sent) return undefined;
  window.aosBootRequest = null;
  const request = await sent;
  if (request?.url !== apiUrl(path, query)) return undefined;
  const response = await request.answer;
  if (response.status === 401) return undefined;
  const body: unknown = await response.json();
  return response.ok ? { data: body as T, response } : { error: body, response };
}
