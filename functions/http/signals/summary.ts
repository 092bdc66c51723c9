import { signalSummary } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('signals/summary', async ({ query, principal }, ports) =>
  ok(await signalSummary(ports.store, tenantOf(principal), query, ports.clock.now())),
);
