/** What a route's logic returns; the envelope middleware turns it into the API Gateway response. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
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
