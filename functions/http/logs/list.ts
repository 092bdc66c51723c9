import { listLogs } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { logsRoutes } from '../../../shared/schemas/routes/logs.ts';
import { agentsRepository } from '../../../shared/store/agents.ts';
import { logsRepository } from '../../../shared/store/timeline.ts';

export const handler = httpRoute('logs/list', logsRoutes, routePorts({ agents: agentsRepository, logs: logsRepository }), async ({ query, principal }, ports) =>
  paged(await listLogs(ports.store, tenantOf(principal), query), query),
);
