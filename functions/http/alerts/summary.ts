import { alertSummary } from '../../../shared/domain/alerts/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { alertDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('alerts/summary', async ({ query, principal }, ports) =>
  ok(await alertSummary(tenantOf(principal), query, alertDeps(ports))),
);
