import { describe, expect, it } from 'vitest';
import { CursorError, decodeCursor, encodeCursor, requestFingerprint } from '#shared/domain/lake/cursor.ts';

const key = Buffer.alloc(32, 7);
const mine = { key, tenantId: 'tnt_a' };
const isPosition = (p: unknown): p is { t: number } => typeof (p as { t?: unknown })?.t === 'number';
const NOW = 1_800_000_000_000;
const request = requestFingerprint(['refund', null]);

describe('page cursors', () => {
  const cursor = encodeCursor(mine, 'search', request, { t: 42 }, NOW);

  it('give back their position to the same tenant and request', () => {
    expect(decodeCursor(mine, 'search', request, cursor, NOW + 1000, isPosition)).toEqual({ t: 42 });
  });

  it.each([
    [
      'another tenant',
      () => decodeCursor({ key, tenantId: 'tnt_b' }, 'search', request, cursor, NOW, isPosition),
      'not a cursor this service issued for this account',
    ],
    ['another deployment', () => decodeCursor({ key: Buffer.alloc(32, 8), tenantId: 'tnt_a' }, 'search', request, cursor, NOW, isPosition), 'for this account'],
    [
      'a changed position',
      () =>
        decodeCursor(
          mine,
          'search',
          request,
          `${Buffer.from(JSON.stringify({ k: 'search', r: request, e: 1e12, p: { t: 1 } })).toString('base64url')}.${cursor.split('.')[1]}`,
          NOW,
          isPosition,
        ),
      'for this account',
    ],
    ['another query', () => decodeCursor(mine, 'search', requestFingerprint(['other', null]), cursor, NOW, isPosition), 'different query'],
    ['another list', () => decodeCursor(mine, 'exports', request, cursor, NOW, isPosition), 'another list'],
    ['a day later', () => decodeCursor(mine, 'search', request, cursor, NOW + 24 * 3_600_000 + 1000, isPosition), 'expired'],
    ['garbage', () => decodeCursor(mine, 'search', request, 'not-a-cursor', NOW, isPosition), 'not a cursor'],
    ['three parts', () => decodeCursor(mine, 'search', request, `${cursor}.x`, NOW, isPosition), 'not a cursor'],
    ['a character added', () => decodeCursor(mine, 'search', request, `${cursor}x`, NOW, isPosition), 'altered'],
  ])('refuse %s with a 400 naming cursor', (_what, decode, reason) => {
    expect(decode).toThrow(CursorError);
    expect(decode).toThrow(new RegExp(`^cursor: .*${reason}`));
  });
});
