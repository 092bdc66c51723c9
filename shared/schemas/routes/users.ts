import { usersRouteDefs } from '../../catalog.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

export const usersRoutes = /* @__PURE__ */ areaRoutes(usersRouteDefs, {
  'users/profile': { summary: "The signed-in user's profile, subscription and resource counts" },
} as const satisfies AreaRouteSchemas<'users'>);
