import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/domain/errors.ts';
import { CURSOR_LIFETIME_MS, decodeCursor, encodeCursor } from '#shared/domain/paging/cursor.ts';

const key = Buffer.alloc(32, 7);
const scope = { tenantId: 'tnt_1', route: 'spans/list-traces', filters: { status: 'error', startDate: new Date('2026-01-01T00:00:00Z'), agentId: undefined } };
const NOW = Date.UTC(2026, 4, 1);

describe('list cursors', () => {
  it('give back their position for the same tenant, list and filters (absent filters and key order do not matter)', () => {
    const cursor = encodeCursor(key, scope, '2026-04-30T10:00:00.000Z#tr-1', NOW);
    const same = { ...scope, filters: { startDate: new Date('2026-01-01T00:00:00Z'), status: 'error' } };
    expect(decodeCursor(key, same, cursor, NOW + 1000)).toBe('2026-04-30T10:00:00.000Z#tr-1');
  });

  it.each([
    ['another tenant', { ...scope, tenantId: 'tnt_2' }],
    ['another list', { ...scope, route: 'logs/list' }],
    ['other filters', { ...scope, filters: { ...scope.filters, status: 'ok' } }],
  ])('are refused for %s, naming cursor', (_what, other) => {
    const cursor = encodeCursor(key, scope, 'p', NOW);
    expect(() => decodeCursor(key, other, cursor, NOW)).toThrow(ValidationError);
    expect(() => decodeCursor(key, other, cursor, NOW)).toThrow(/^Invalid query: cursor: /);
  });

  it('are refused when altered, signed with another key, or older than their lifetime', () => {
    const cursor = encodeCursor(key, scope, 'p', NOW);
    const [body, mac] = cursor.split('.');
    const altered = `${Buffer.from(JSON.stringify({ p: 'q', i: NOW })).toString('base64url')}.${mac}`;
    expect(() => decodeCursor(key, scope, altered, NOW)).toThrow(/cursor: is not one this service returned for this list and these filters: it was altered/);
    expect(() => decodeCursor(Buffer.alloc(32, 8), scope, cursor, NOW)).toThrow(
      /cursor: is not one this service returned for this list and these filters: it was altered/,
    );
    expect(() => decodeCursor(key, scope, `${body}`, NOW)).toThrow(/cursor: is not a cursor/);
    // Characters added to the signature, which decoding would skip.
    for (const added of ['x', 'A', '=', '!']) expect(() => decodeCursor(key, scope, `${cursor}${added}`, NOW), added).toThrow(/it was altered/);
    expect(decodeCursor(key, scope, cursor, NOW + CURSOR_LIFETIME_MS)).toBe('p');
    expect(() => decodeCursor(key, scope, cursor, NOW + CURSOR_LIFETIME_MS + 1)).toThrow(/cursor: has expired/);
  });
});
