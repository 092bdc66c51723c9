import { describe, expect, it } from 'vitest';
import { type Catalog, catalog, type RouteDef } from '#shared/catalog.ts';
import { ROUTE_STACK_AREAS, type RouteStackPlan, routeStackLayout } from '../../infra/aws/stack-layout.ts';

const stackOf = (layout: RouteStackPlan[], routeId: string): string | undefined =>
  layout.find((plan) => plan.routes.some((route) => route.id === routeId))?.name;
const withRoutes = (...added: RouteDef[]): Catalog => ({ ...catalog, routes: [...catalog.routes, ...added] });
const route = (id: string, path: string): RouteDef => ({ id, method: 'GET', path, auth: 'any', tier: 'standard' });

describe('the route stacks', () => {
  const layout = routeStackLayout(catalog);

  it('hold every catalog route exactly once, and the fallback route in one stack', () => {
    const placed = layout.flatMap((plan) => plan.routes.map((r) => r.id));
    expect(placed.sort()).toEqual(catalog.routes.map((r) => r.id).sort());
    expect(layout.filter((plan) => plan.fallbackRoute)).toEqual([expect.objectContaining({ name: 'Access', fallbackRoute: catalog.fallbackRoute })]);
  });

  it('are the named groups, none empty', () => {
    expect(layout.map((plan) => plan.name)).toEqual(Object.keys(ROUTE_STACK_AREAS));
    for (const plan of layout) expect(plan.routes.length, plan.name).toBeGreaterThan(0);
  });

  it("take a new route of an area into that area's stack, and move no other", () => {
    const grown = routeStackLayout(withRoutes(route('keys/rotate-all', '/keys/rotate')));
    expect(stackOf(grown, 'keys/rotate-all')).toBe(stackOf(layout, 'keys/list'));
    for (const { id } of catalog.routes) expect(stackOf(grown, id), id).toBe(stackOf(layout, id));
  });

  it('give a new area a stack of its own, named after it, and move no other route', () => {
    const grown = routeStackLayout(withRoutes(route('datasets/create', '/datasets'), route('datasets/get', '/datasets/{id}')));
    expect(grown.at(-1)).toMatchObject({ name: 'Datasets', routes: [{ id: 'datasets/create' }, { id: 'datasets/get' }] });
    for (const { id } of catalog.routes) expect(stackOf(grown, id), id).toBe(stackOf(layout, id));
  });

  it('skip a group whose areas have no route', () => {
    const grown = routeStackLayout(catalog, { ...ROUTE_STACK_AREAS, Console: ['console'] });
    expect(grown.map((plan) => plan.name)).not.toContain('Console');
  });

  it('refuse an area named in two groups', () => {
    expect(() => routeStackLayout(catalog, { ...ROUTE_STACK_AREAS, Keys: ['keys'] })).toThrow(/area keys is in two route stacks, Access and Keys/);
  });
});
