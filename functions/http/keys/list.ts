import { listKeys } from '#shared/domain/accounts/api-key-service.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { listRoute } from '#shared/http/list-route.ts';
import { keysRoutes } from '#shared/schemas/routes/keys.ts';
import { apiKeysRepository } from '#shared/store/api-keys.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = listRoute('keys/list', keysRoutes, routePorts({ apiKeys: apiKeysRepository }), ({ principal }, page, ports) =>
  listKeys(tenantOf(principal), page, ports.store),
);
