import { publicKey } from '../../../shared/domain/accounts/api-key-service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { keysRoutes } from '../../../shared/schemas/routes/keys.ts';
import { apiKeysRepository } from '../../../shared/store/api-keys.ts';

export const handler = httpRoute('keys/list', keysRoutes, routePorts({ apiKeys: apiKeysRepository }), async ({ query, principal }, ports) => {
  const keys = await ports.store.apiKeys.listAll(tenantOf(principal));
  return paged(keys.map(publicKey), query);
});
