import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/**
 * `pagination.nextCursor`: where the next page of a list starts. Opaque to clients and signed (HMAC-
 * SHA256 under a key derived from the deployment's signing seed), bound to the tenant, the route and
 * the list's filters, so it is refused for another tenant, another list or other filters, and after
 * CURSOR_LIFETIME_MS. It carries a position in the list's key order (the sort key of the last item
 * a page read up to), never a query of its own.
 */
export const CURSOR_LIFETIME_MS = 24 * 60 * 60_000;

/** What a cursor is bound to: a list (route) of a tenant, filtered the same way. */
export interface CursorScope {
  tenantId: string;
  route: string;
  /** The validated query without `limit`, `skip` and `cursor`. */
  filters: Record<string, unknown>;
}

interface Payload {
  /** The position the next page starts after. */
  p: string;
  /** Issued at, epoch ms. */
  i: number;
}

const MAC_BYTES = 18;

/** The filters in one canonical text: keys sorted, dates as ISO, absent values left out. */
export function canonicalFilters(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

const scopeDigest = (scope: CursorScope): string =>
  createHash('sha256')
    .update(JSON.stringify([scope.tenantId, scope.route, canonicalFilters(scope.filters)]))
    .digest('base64url');

const mac = (key: Buffer, scope: CursorScope, body: string): Buffer =>
  createHmac('sha256', key)
    .update(`cursor-v1\n${scopeDigest(scope)}\n${body}`)
    .digest()
    .subarray(0, MAC_BYTES);

export function encodeCursor(key: Buffer, scope: CursorScope, position: string, nowMs: number): string {
  const payload: Payload = { p: position, i: nowMs };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(key, scope, body).toString('base64url')}`;
}

const refused = (why: string) => new ValidationError(`Invalid query: cursor: ${why}`);

/** The cursor's position; a cursor that was altered, made for another tenant, list or filters, or is too old is refused (400 naming `cursor`). */
export function decodeCursor(key: Buffer, scope: CursorScope, cursor: string, nowMs: number): string {
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length > 0) throw refused('is not a cursor this service issued');
  const expected = mac(key, scope, body);
  const given = Buffer.from(signature, 'base64url');
  // Decoding skips what is not base64url and the bits of a trailing partial byte: only the text the
  // service wrote passes (a character added to a cursor passed before).
  const asWritten = given.toString('base64url') === signature;
  if (!asWritten || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw refused(
      'is not one this service returned for this list and these filters: it was altered, or it comes from another query (a cursor only continues the query that returned it)',
    );
  }
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  if (!(nowMs - payload.i <= CURSOR_LIFETIME_MS)) throw refused('has expired; start again from the first page');
  return payload.p;
}
