import { listSignals } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { signalsRoutes } from '#shared/schemas/routes/signals.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { signalsRepository } from '#shared/store/timeline.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute(
  'signals/list',
  signalsRoutes,
  routePorts({ agents: agentsRepository, signals: signalsRepository }),
  ({ query, principal }, page, ports) => listSignals(ports.store, tenantOf(principal), query, page),
);
