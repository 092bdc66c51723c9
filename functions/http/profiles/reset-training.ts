import { resetAgentTraining } from '#shared/domain/profiles/service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { profilesRoutes } from '#shared/schemas/routes/profiles.ts';
import { PROFILE_REPOSITORIES, profileDeps } from '#shared/wiring/profiles.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('profiles/reset-training', profilesRoutes, routePorts(PROFILE_REPOSITORIES), async ({ params, principal }, ports) =>
  ok(await resetAgentTraining(tenantOf(principal), params.agentId, profileDeps(ports))),
);
