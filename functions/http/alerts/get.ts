import { getAlert } from '../../../shared/domain/alerts/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { alertDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('alerts/get', async ({ params, principal }, ports) =>
  ok(await getAlert(tenantOf(principal), params.alertId, alertDeps(ports))),
);
