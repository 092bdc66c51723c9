import { signalSummary } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { signalsRoutes } from '#shared/schemas/routes/signals.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { signalsRepository } from '#shared/store/timeline.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'signals/summary',
  signalsRoutes,
  routePorts({ agents: agentsRepository, signals: signalsRepository }),
  async ({ query, principal }, ports) => ok(await signalSummary(ports.store, tenantOf(principal), query, ports.clock.now())),
);
