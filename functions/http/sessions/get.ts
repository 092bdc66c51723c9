import { getSession } from '#shared/domain/sessions/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { sessionsRoutes } from '#shared/schemas/routes/sessions.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute(
  'sessions/get',
  sessionsRoutes,
  routePorts({ sessions: sessionsRepository, traces: tracesRepository }),
  ({ params, principal }, page, ports) => getSession(ports.store, tenantOf(principal), params.sessionId, page, ports.clock.now().getTime()),
);
