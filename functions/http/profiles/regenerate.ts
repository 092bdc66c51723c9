import { regenerateAgentProfile } from '#shared/domain/profiles/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { profilesRoutes } from '#shared/schemas/routes/profiles.ts';
import { LEARNING_REPOSITORIES, learningDeps } from '#shared/wiring/learning.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('profiles/regenerate', profilesRoutes, routePorts(LEARNING_REPOSITORIES), async ({ params, principal }, ports) =>
  ok(await regenerateAgentProfile(tenantOf(principal), params.agentId, learningDeps(ports))),
);
