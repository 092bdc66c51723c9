import { refreshKey } from '../../../shared/domain/accounts/api-key-service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { apiKeyDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('keys/refresh', async ({ params, principal }, ports) =>
  ok(await refreshKey(tenantOf(principal), params.id, apiKeyDeps(ports))),
);
