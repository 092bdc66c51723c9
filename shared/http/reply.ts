/** What a route's logic returns; the envelope middleware turns it into the API Gateway response. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body is already encoded (not JSON to serialise): text as is, bytes as base64. */
  encoded?: boolean;
}

export interface Page {
  limit: number;
  skip: number;
}

export const ok = (data: unknown): Reply => ({ status: 200, body: { success: true, data } });
export const created = (data: unknown): Reply => ({ status: 201, body: { success: true, data } });
export const accepted = (data: unknown): Reply => ({ status: 202, body: { success: true, data } });

/** A list answer: `data` is the page, `pagination` says where it sits in the whole. */
export function paged<T>(all: readonly T[], page: Page): Reply;
export function paged<T>(items: readonly T[], page: Page, total: number): Reply;
export function paged<T>(items: readonly T[], page: Page, total?: number): Reply {
  const data = total === undefined ? items.slice(page.skip, page.skip + page.limit) : items;
  const count = total ?? items.length;
  return {
    status: 200,
    body: {
      success: true,
      data,
      pagination: { total: count, limit: page.limit, skip: page.skip, hasMore: page.skip + data.length < count },
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
