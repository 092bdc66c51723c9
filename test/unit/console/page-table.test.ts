import { expect, it } from 'vitest';
import { firstRequestOf } from '../../../console/src/first-request.ts';
import { needsSignIn, pathPattern } from '../../../console/src/page-table.ts';

const matches = (path: string, url: string) => new RegExp(pathPattern(path), 'i').test(url);

it("matches a page's path as React Router does: a parameter is one segment, a trailing slash and letter case do not count", () => {
  expect(matches('/traces', '/traces')).toBe(true);
  expect(matches('/traces', '/Traces/')).toBe(true);
  expect(matches('/traces', '/traces/t-1')).toBe(false);
  expect(matches('/traces/:traceId', '/traces/t-1')).toBe(true);
  expect(matches('/traces/:traceId', '/traces/t-1/spans')).toBe(false);
  expect(matches('/traces/:traceId', '/traces/')).toBe(false);
  expect(matches('/', '/')).toBe(true);
  expect(matches('/', '/settings')).toBe(false);
  expect(matches('/forgot-password', '/forgot-password')).toBe(true);
  expect(matches('/forgot-password', '/forgotxpassword')).toBe(false);
});

it('a page load renews the sign-in on every page but the signed-out ones, an unknown path included', () => {
  for (const url of ['/', '/traces', '/traces/t-1', '/alerts/a-1', '/settings', '/no-such-page']) expect(needsSignIn(url), url).toBe(true);
  for (const url of ['/login', '/register', '/forgot-password', '/reset-password', '/verify-email', '/auth/callback', '/LOGIN/']) {
    expect(needsSignIn(url), url).toBe(false);
  }
});

it("the first request a landing page's URL says it makes is the traces explorer's list, with the URL's filters, page size and range", () => {
  expect(firstRequestOf({ pathname: '/traces', search: '' })).toBe('/api/spans/traces?limit=50');
  expect(firstRequestOf({ pathname: '/Traces/', search: '?status=error&limit=10&from=2026-01-01T00:00:00Z&metadata=team%3Dpay%20ments&unknown=1' })).toBe(
    '/api/spans/traces?limit=10&startDate=2026-01-01T00%3A00%3A00.000Z&status=error&metadata=team%3Dpay%20ments',
  );
  for (const pathname of ['/traces/t-1', '/sessions', '/', '/login']) expect(firstRequestOf({ pathname, search: '' }), pathname).toBeUndefined();
});
