import { listLogs } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { logsRoutes } from '#shared/schemas/routes/logs.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { logsRepository } from '#shared/store/timeline.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute('logs/list', logsRoutes, routePorts({ agents: agentsRepository, logs: logsRepository }), ({ query, principal }, page, ports) =>
  listLogs(ports.store, tenantOf(principal), query, page),
);
