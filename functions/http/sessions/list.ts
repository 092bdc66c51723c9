import { listSessions } from '#shared/domain/sessions/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { sessionsRoutes } from '#shared/schemas/routes/sessions.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute(
  'sessions/list',
  sessionsRoutes,
  routePorts({ agents: agentsRepository, sessions: sessionsRepository }),
  ({ query, principal }, page, ports) => listSessions(ports.store, tenantOf(principal), query, page),
);
