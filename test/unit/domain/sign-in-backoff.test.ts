import { describe, expect, it } from 'vitest';
import { FAILURES_FORGOTTEN_AFTER_MS, FREE_FAILURES, lockAfter, lockedUntil } from '#shared/domain/accounts/sign-in-backoff.ts';

describe('sign-in backoff', () => {
  it('locks after the free failures, doubling the lock with each further failure up to an hour', () => {
    expect(Array.from({ length: FREE_FAILURES }, (_, i) => lockAfter(i))).toEqual([0, 0, 0, 0, 0]);
    expect([5, 6, 7, 8, 11, 12, 50, 1e6].map(lockAfter)).toEqual([60_000, 120_000, 240_000, 480_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('is locked until the lock after the last failure ends, and forgets a series after a day', () => {
    const last = Date.parse('2026-11-24T10:00:00Z');
    expect(lockedUntil({ failures: 4, lastFailureAtMs: last }, last + 1)).toBeUndefined();
    expect(lockedUntil({ failures: 5, lastFailureAtMs: last }, last + 59_000)).toBe(last + 60_000);
    expect(lockedUntil({ failures: 5, lastFailureAtMs: last }, last + 60_000)).toBeUndefined();
    expect(lockedUntil({ failures: 20, lastFailureAtMs: last }, last + 3_599_000)).toBe(last + 3_600_000);
    expect(lockedUntil({ failures: 20, lastFailureAtMs: last }, last + FAILURES_FORGOTTEN_AFTER_MS)).toBeUndefined();
    expect(lockedUntil(undefined, last)).toBeUndefined();
  });
});
