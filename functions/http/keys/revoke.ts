import { revokeKey } from '#shared/domain/accounts/api-key-service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { keysRoutes } from '#shared/schemas/routes/keys.ts';
import { apiKeysRepository } from '#shared/store/api-keys.ts';
import { apiKeyDeps } from '#shared/wiring/accounts.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('keys/revoke', keysRoutes, routePorts({ apiKeys: apiKeysRepository }), async ({ params, principal }, ports) =>
  ok(await revokeKey(tenantOf(principal), params.id, apiKeyDeps(ports))),
);
