import { acceptTelemetry } from '../../../shared/domain/ingest/accept.ts';
import { signalFromNative } from '../../../shared/domain/ingest/native.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { acceptDeps } from '../../../shared/http/deps.ts';
import { accepted } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('signals/record', async ({ body, principal }, ports) => {
  const signal = signalFromNative(ports.clock.now().getTime())(body);
  return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: [signal], logs: [] }, [], acceptDeps(ports)));
});
