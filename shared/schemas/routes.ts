import type { RouteId } from '../catalog.ts';
import type { RouteSchemas } from './route-schemas.ts';
import { agentsRoutes } from './routes/agents.ts';
import { alertsRoutes } from './routes/alerts.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { authRoutes } from './routes/auth.ts';
import { experimentsRoutes } from './routes/experiments.ts';
import { exportsRoutes } from './routes/exports.ts';
import { keysRoutes } from './routes/keys.ts';
import { logsRoutes } from './routes/logs.ts';
import { otlpRoutes } from './routes/otlp.ts';
import { profilesRoutes } from './routes/profiles.ts';
import { searchRoutes } from './routes/search.ts';
import { sessionsRoutes } from './routes/sessions.ts';
import { signalsRoutes } from './routes/signals.ts';
import { spansRoutes } from './routes/spans.ts';
import { systemRoutes } from './routes/system.ts';
import { usersRoutes } from './routes/users.ts';

/**
 * Request schemas of every route, keyed by catalog id: the union of the area tables the handlers
 * validate with, so the OpenAPI document generated from it cannot drift from them. Each area table
 * holds exactly its area's routes (`AreaRouteSchemas`), so together they name every route once.
 */
export const routeSchemas = {
  ...systemRoutes,
  ...authRoutes,
  ...usersRoutes,
  ...keysRoutes,
  ...otlpRoutes,
  ...spansRoutes,
  ...sessionsRoutes,
  ...signalsRoutes,
  ...logsRoutes,
  ...agentsRoutes,
  ...alertsRoutes,
  ...analyticsRoutes,
  ...profilesRoutes,
  ...experimentsRoutes,
  ...searchRoutes,
  ...exportsRoutes,
} as const satisfies Record<RouteId, RouteSchemas>;
