import { publicKey } from '../../../shared/domain/accounts/api-key-service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('keys/list', async ({ query, principal }, ports) => {
  const keys = await ports.store.apiKeys.listAll(tenantOf(principal));
  return paged(keys.map(publicKey), query);
});
