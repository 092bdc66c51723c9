import type { RouteId } from '../catalog.ts';
import { decodeCursor, encodeCursor } from '../domain/paging/cursor.ts';
import type { ListPage, PageInput } from '../domain/paging/page.ts';
import type { AreaRoute } from '../schemas/route-schemas.ts';
import { tenantOf } from './auth.ts';
import { paged } from './reply.ts';
import { httpRoute, type RoutePorts, type RouteRequest } from './route.ts';

interface PageParameters {
  limit: number;
  skip: number;
  cursor?: string;
}

/**
 * A list route: `httpRoute` plus the pagination every list shares. The cursor is checked against the
 * caller's tenant, the route and the request's other parameters (filters and path) before `impl`
 * runs; `impl` reads the page it is given and answers the page with its total, and the answer carries
 * the signed cursor of the page after it. `data` in the result replaces the items as the answer's data
 * (a resource holding the list, like a session with its traces).
 */
export function listRoute<R extends RouteId, T extends Readonly<Record<R, AreaRoute>>, P extends RoutePorts>(
  routeId: R,
  areaSchemas: T,
  getPorts: () => P,
  impl: (request: RouteRequest<T[R]>, page: PageInput, ports: P) => Promise<ListPage<unknown> & { data?: unknown }>,
) {
  return httpRoute(routeId, areaSchemas, getPorts, async (request, ports) => {
    const { limit, skip, cursor, ...filters } = request.query as unknown as PageParameters & Record<string, unknown>;
    const scope = { tenantId: tenantOf(request.principal), route: routeId, filters: { ...filters, ...(request.params as object | undefined) } };
    const { cursorKey } = await ports.signing();
    const nowMs = ports.clock.now().getTime();
    const after = cursor === undefined ? undefined : decodeCursor(cursorKey, scope, cursor, nowMs);
    const result = await impl(request, { limit, skip, ...(after === undefined ? {} : { after }) }, ports);
    return paged(result, { limit, skip }, result.next === undefined ? null : encodeCursor(cursorKey, scope, result.next, nowMs));
  });
}
