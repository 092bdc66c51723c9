import { pathPattern, SIGNED_IN_PAGES } from './page-table.ts';
import { TRACE_LIST, traceQueryOf } from './pages/traces-query.ts';

/*
 * The API request a landing page asks for first, when its URL alone says what it is. The boot script
 * (boot.ts) sends it as soon as the sign-in's refresh has answered, while the console's code still
 * loads, and the page takes its answer (api/boot-answer.ts) instead of sending its own.
 */

type PageModule = (typeof SIGNED_IN_PAGES)[number]['module'];

/** Each such page's first request: the API path and its query string, from the page's URL. */
const FIRST_REQUESTS: Partial<Record<PageModule, (search: URLSearchParams) => string>> = {
  Traces: (search) => apiUrl(TRACE_LIST, traceQueryOf(search)),
};

/** The pages that have a first request (the build tells the boot script: boot-plugin.ts). */
export const hasFirstRequest = (module: string): boolean => module in FIRST_REQUESTS;

/** An API request's URL: `/api`, the path and the query, each value encoded as openapi-fetch encodes it. */
export function apiUrl(path: string, query: Record<string, string>): string {
  const parameters = Object.entries(query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return `/api${path}${parameters.length > 0 ? `?${parameters.join('&')}` : ''}`;
}

/** The first request of the signed-in page at this location, if it has one. */
export function firstRequestOf(location: { pathname: string; search: string }): string | undefined {
  const page = SIGNED_IN_PAGES.find((p) => new RegExp(pathPattern(p.path), 'i').test(location.pathname));
  return page && FIRST_REQUESTS[page.module]?.(new URLSearchParams(location.search));
}

/** The boot script's first request: its URL and its answer to come. */
export interface BootRequest {
  url: string;
  answer: Promise<Response>;
}

declare global {
  interface Window {
    /** The boot script's first request of the landing page (undefined when it sent none); null once the console has taken it. */
    aosBootRequest?: Promise<BootRequest | undefined> | null;
  }
}
