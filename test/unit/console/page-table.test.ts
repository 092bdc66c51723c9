import { expect, it } from 'vitest';
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
