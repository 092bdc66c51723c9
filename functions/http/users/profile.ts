import { profile } from '#shared/domain/accounts/users.ts';
import { userOf } from '#shared/http/auth.ts';
import { raw } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { usersRoutes } from '#shared/schemas/routes/users.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { apiKeysRepository } from '#shared/store/api-keys.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { usersRepository } from '#shared/store/users.ts';
import { routePorts } from '#shared/wiring/routes.ts';

/** The spec documents this one answer with the profile fields at top level beside `success`. */
export const handler = httpRoute(
  'users/profile',
  usersRoutes,
  routePorts({ users: usersRepository, tenants: tenantsRepository, agents: agentsRepository, apiKeys: apiKeysRepository }),
  async ({ principal }, ports) => raw(200, { success: true, ...(await profile(userOf(principal).userId, ports)) }),
);
