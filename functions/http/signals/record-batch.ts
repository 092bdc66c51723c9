import { acceptTelemetry } from '../../../shared/domain/ingest/accept.ts';
import { parseSignals } from '../../../shared/domain/ingest/native.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { acceptDeps } from '../../../shared/http/deps.ts';
import { accepted } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('signals/record-batch', async ({ body, principal }, ports) => {
  const { items, errors } = parseSignals(body.signals, ports.clock.now().getTime());
  return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: items, logs: [] }, errors, acceptDeps(ports)));
});
