import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/**
 * Opaque cursors for deep pages: where the next page starts, which request it belongs to and until
 * when it holds, signed with a key of the deployment (HMAC-SHA256) over the tenant's id too. A client
 * can read none of it usefully and change none of it; a cursor of another tenant, another query or an
 * earlier day is refused with a 400 naming `cursor`.
 */
export interface CursorKey {
  key: Buffer;
  tenantId: string;
}

/** What a page of a list was asked with: a cursor only continues the same request. */
export const requestFingerprint = (request: unknown): string => createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 22);

const CURSOR_LIFETIME_MS = 24 * 3_600_000;

interface Envelope<T> {
  /** What kind of list (`search`, `exports`). */
  k: string;
  /** The request's fingerprint. */
  r: string;
  /** Expiry, epoch seconds. */
  e: number;
  p: T;
}

const mac = ({ key, tenantId }: CursorKey, body: string) => createHmac('sha256', key).update(`${tenantId}\n${body}`).digest();

export function encodeCursor<T>(signer: CursorKey, kind: string, request: string, position: T, nowMs: number): string {
  const envelope: Envelope<T> = { k: kind, r: request, e: Math.floor((nowMs + CURSOR_LIFETIME_MS) / 1000), p: position };
  const body = Buffer.from(JSON.stringify(envelope)).toString('base64url');
  return `${body}.${mac(signer, body).toString('base64url')}`;
}

export class CursorError extends ValidationError {
  constructor(reason: string) {
    super(`cursor: ${reason}`);
  }
}

/** The position a cursor holds, once it is proven to be this tenant's, for this request, and current. */
export function decodeCursor<T>(signer: CursorKey, kind: string, request: string, cursor: string, nowMs: number, isPosition: (p: unknown) => p is T): T {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw new CursorError('is not a cursor this service issued');
  const expected = mac(signer, body);
  const given = Buffer.from(signature, 'base64url');
  // A cursor of another tenant fails here exactly like a forged one; so does one with a character
  // added (decoding would skip it: only the text the service wrote passes).
  const asWritten = given.toString('base64url') === signature;
  if (!asWritten || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new CursorError('is not a cursor this service issued for this account (or it was altered)');
  }
  let envelope: Envelope<unknown>;
  try {
    envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Envelope<unknown>;
  } catch {
    throw new CursorError('is not a cursor this service issued');
  }
  if (envelope.k !== kind) throw new CursorError('belongs to another list');
  if (envelope.r !== request)
    throw new CursorError('belongs to a different query; send the same parameters as the page it came with, or start again without it');
  if (typeof envelope.e !== 'number' || envelope.e * 1000 <= nowMs) throw new CursorError('has expired; start again without it');
  if (!isPosition(envelope.p)) throw new CursorError('is not a cursor this service issued');
  return envelope.p;
}
