import type { ListPage } from '../domain/paging/page.ts';

/** What a route's logic returns; the envelope middleware turns it into the API Gateway response. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body is already encoded (not JSON to serialise): text as is, bytes as base64. */
  encoded?: boolean;
  /** A file on this machine to send as the body (a local export): the local runtime streams it. */
  file?: string;
}

export const ok = (data: unknown): Reply => ({ status: 200, body: { success: true, data } });
export const created = (data: unknown): Reply => ({ status: 201, body: { success: true, data } });
export const accepted = (data: unknown): Reply => ({ status: 202, body: { success: true, data } });

/**
 * A list answer: `data` is the page (or, for a resource with a list inside, what `data` holds);
 * `pagination` says where it sits in the whole: `total` (exact when `totalExact`, else a lower bound
 * from a bounded count), `hasMore`, and `nextCursor`, which the next request passes as `cursor`.
 */
export function paged(result: ListPage<unknown> & { data?: unknown }, page: { limit: number; skip: number }, nextCursor: string | null): Reply {
  const total = result.totalExact ? result.total : Math.max(result.total, page.skip + result.items.length + (result.hasMore ? 1 : 0));
  return {
    status: 200,
    body: {
      success: true,
      data: result.data ?? result.items,
      pagination: { total, limit: page.limit, skip: page.skip, hasMore: result.hasMore, nextCursor, totalExact: result.totalExact },
    },
  };
}

/** A body sent as it is (the profile endpoint answers its fields at top level, per the spec). */
export const raw = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

/** A body in its own encoding (OTLP answers in protobuf or JSON, as the request came). */
export const encoded = (status: number, body: Buffer | string, contentType: string): Reply => ({
  status,
  body,
  headers: { 'Content-Type': contentType },
  encoded: true,
});

/** A list answered by keyset pages (search, exports): no total, an opaque cursor to the next page. */
export const cursorPaged = (data: readonly unknown[], pagination: { limit: number; hasMore: boolean; nextCursor: string | null }): Reply => ({
  status: 200,
  body: { success: true, data, pagination },
});

export const redirect = (location: string): Reply => ({
  status: 302,
  body: '',
  headers: { Location: location, 'Content-Type': 'text/plain; charset=utf-8' },
  encoded: true,
});

/**
 * A local file as an attachment. Lambda has no such answer: only the local runtime, whose export
 * runner writes files, streams it; on AWS exports answer a redirect to S3 instead.
 */
export const fileAttachment = (file: { file: string; bytes: number; contentType: string; filename: string }): Reply => ({
  status: 200,
  body: '',
  encoded: true,
  file: file.file,
  headers: {
    'Content-Type': file.contentType,
    'Content-Disposition': `attachment; filename="${file.filename.replace(/["\\]/g, '_')}"`,
    'Content-Length': String(file.bytes),
  },
});
