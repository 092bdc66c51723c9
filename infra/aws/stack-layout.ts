import { areaOf, type Catalog, type RouteDef } from '#shared/catalog.ts';
import { constructId } from './names.ts';

/**
 * The route stacks, each with the catalog areas it holds (an area is the first part of a route id). Areas
 * are grouped by what they serve, never packed by size, so an area stays in its stack as routes come: a
 * route that changed stacks would be created in the new one before it is deleted from the old, and API
 * Gateway refuses two routes with the same key. An area named in no group gets a stack of its own, named
 * after it, so a new area needs no edit here; list it in a group before it is deployed to share a stack.
 */
export const ROUTE_STACK_AREAS: Readonly<Record<string, readonly string[]>> = {
  Access: ['system', 'auth', 'users', 'keys'],
  // `sessions` reads the traces: placed here before its first route is deployed, so it never has to move.
  Telemetry: ['otlp', 'spans', 'logs', 'signals', 'sessions'],
  Agents: ['agents', 'profiles', 'experiments'],
  Insights: ['analytics', 'alerts', 'search', 'exports'],
};

export interface RouteStackPlan {
  /** The stack's name within the service: a key of the groups, or an area's own name. */
  readonly name: string;
  readonly routes: readonly RouteDef[];
  /** Set on the one stack that holds the fallback route's area. */
  readonly fallbackRoute?: Catalog['fallbackRoute'];
}

/** The route stacks of a catalog: the groups that hold a route, in order, then the own stacks of areas no group names. */
export function routeStackLayout(catalog: Catalog, groups: Readonly<Record<string, readonly string[]>> = ROUTE_STACK_AREAS): RouteStackPlan[] {
  const stackOfArea = new Map<string, string>();
  for (const [name, areas] of Object.entries(groups)) {
    for (const area of areas) {
      const other = stackOfArea.get(area);
      if (other !== undefined) throw new Error(`area ${area} is in two route stacks, ${other} and ${name}`);
      stackOfArea.set(area, name);
    }
  }
  const stacks = new Map<string, { routes: RouteDef[]; holdsFallback: boolean }>();
  for (const name of Object.keys(groups)) stacks.set(name, { routes: [], holdsFallback: false });
  const stackOf = (routeId: string) => {
    const area = areaOf(routeId);
    const name = stackOfArea.get(area) ?? constructId(area);
    const stack = stacks.get(name) ?? { routes: [], holdsFallback: false };
    stacks.set(name, stack);
    return stack;
  };
  for (const route of catalog.routes) stackOf(route.id).routes.push(route);
  stackOf(catalog.fallbackRoute.id).holdsFallback = true;

  return [...stacks]
    .filter(([, stack]) => stack.routes.length > 0 || stack.holdsFallback)
    .map(([name, { routes, holdsFallback }]) => ({ name, routes, ...(holdsFallback && { fallbackRoute: catalog.fallbackRoute }) }));
}
