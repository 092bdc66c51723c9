import { fallbackRoute, systemRouteDefs } from '../../catalog.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

export const systemRoutes = /* @__PURE__ */ areaRoutes([...systemRouteDefs, fallbackRoute], {
  'system/health': { summary: 'Liveness check' },
  'system/jwks': { summary: 'Public keys that verify the access tokens this service issues (JWKS)' },
  'system/openapi': { summary: 'This OpenAPI 3.1 document' },
  'system/not-found': { summary: 'Answers any request no route matches with 404 NOT_FOUND' },
} as const satisfies AreaRouteSchemas<'system'>);
