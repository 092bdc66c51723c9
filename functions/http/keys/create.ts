import { createKey } from '#shared/domain/accounts/api-key-service.ts';
import { userOf } from '#shared/http/auth.ts';
import { created } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { keysRoutes } from '#shared/schemas/routes/keys.ts';
import { apiKeysRepository } from '#shared/store/api-keys.ts';
import { apiKeyDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('keys/create', keysRoutes, routePorts({ apiKeys: apiKeysRepository }), async ({ body, principal }, ports) => {
  const user = userOf(principal);
  return created(await createKey(user.tenantId, user.userId, body, apiKeyDeps(ports)));
});
