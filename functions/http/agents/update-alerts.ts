import { updateAlertConfig } from '../../../shared/domain/alerts/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { alertDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('agents/update-alerts', async ({ params, body, principal }, ports) =>
  ok(await updateAlertConfig(tenantOf(principal), params.agentId, body, alertDeps(ports))),
);
