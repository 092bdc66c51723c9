import type { AreaRouteSchemas } from '../route-schemas.ts';

export const usersRoutes = {
  'users/profile': { summary: "The signed-in user's profile, subscription and resource counts" },
} as const satisfies AreaRouteSchemas<'users'>;
