import { regenerateAgentProfile } from '../../../shared/domain/profiles/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { learningDeps } from '../../../shared/http/learning-deps.ts';
import { PROFILE_REPOSITORIES } from '../../../shared/http/profile-deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { profilesRoutes } from '../../../shared/schemas/routes/profiles.ts';

export const handler = httpRoute('profiles/regenerate', profilesRoutes, routePorts(PROFILE_REPOSITORIES), async ({ params, principal }, ports) =>
  ok(await regenerateAgentProfile(tenantOf(principal), params.agentId, learningDeps(ports))),
);
