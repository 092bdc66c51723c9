import { listAlerts } from '../../../shared/domain/alerts/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { alertDeps } from '../../../shared/http/deps.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('alerts/list', async ({ query, principal }, ports) =>
  paged(await listAlerts(tenantOf(principal), query, alertDeps(ports)), query),
);
