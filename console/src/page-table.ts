/**
 * The console's pages: each URL (React Router's pattern) and its module under `src/pages/` (without
 * `.tsx`). The router is built from these tables (routes.tsx); which of them need a sign-in decides
 * whether a page load starts by renewing it (early-sign-in.ts). The build reads them too, to tell
 * index.html's boot script which files a landing page needs (boot-plugin.ts), so this module imports nothing.
 */
/** Where the API is, on the console's own origin. */
export const API_BASE_URL = '/api';

export interface PageEntry {
  path: string;
  module: string;
  /**
   * The API request (its path under API_BASE_URL) the page sends first when its URL has no query: the boot
   * script sends it as soon as the sign-in is renewed, and the page takes its answer (api/boot-request.ts).
   */
  firstRequest?: string;
}

/** What a visitor sees signed out. */
export const PUBLIC_PAGES = [
  { path: '/login', module: 'auth/Login' },
  { path: '/register', module: 'auth/Register' },
  { path: '/forgot-password', module: 'auth/ForgotPassword' },
  { path: '/reset-password', module: 'auth/ResetPassword' },
  { path: '/verify-email', module: 'auth/VerifyEmail' },
  { path: '/auth/callback', module: 'auth/AuthCallback' },
] as const satisfies readonly PageEntry[];

/** The pages of a signed-in user; any other path is theirs too (it answers "not found" there). */
export const SIGNED_IN_PAGES = [
  { path: '/', module: 'Overview' },
  { path: '/traces', module: 'Traces', firstRequest: '/spans/traces?limit=50' },
  { path: '/traces/:traceId', module: 'TraceDetail' },
  { path: '/search', module: 'Search' },
  { path: '/exports', module: 'Exports' },
  { path: '/sessions', module: 'Sessions' },
  { path: '/sessions/:sessionId', module: 'SessionDetail' },
  { path: '/agents', module: 'Agents' },
  { path: '/agents/:agentId', module: 'AgentDetail' },
  { path: '/alerts', module: 'Alerts' },
  { path: '/alerts/:alertId', module: 'AlertDetail' },
  { path: '/experiments', module: 'Experiments' },
  { path: '/experiments/:id', module: 'ExperimentDetail' },
  { path: '/settings', module: 'Settings' },
] as const satisfies readonly PageEntry[];

/**
 * A route's pattern as a regular expression over a URL's path, matching as React Router does: a
 * `:param` is one segment, a trailing slash and letter case do not count (use it with the `i` flag).
 */
export function pathPattern(path: string): string {
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')));
  return `^/${segments.join('/')}/?$`;
}

/** The URL of the first API request of the page at a URL (`firstRequest`), when that URL has no query. */
export function firstRequestAt({ pathname, search }: { pathname: string; search: string }): string | undefined {
  if (search !== '') return undefined;
  const page: PageEntry | undefined = SIGNED_IN_PAGES.find((p) => new RegExp(pathPattern(p.path), 'i').test(pathname));
  return page?.firstRequest === undefined ? undefined : API_BASE_URL + page.firstRequest;
}

/** Whether the page at a URL's path needs a sign-in (every page but the public ones). */
export const needsSignIn = (pathname: string): boolean => !PUBLIC_PAGES.some((page) => new RegExp(pathPattern(page.path), 'i').test(pathname));
