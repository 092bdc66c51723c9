import { acceptTelemetry } from '../../../shared/domain/ingest/accept.ts';
import { parseLogs } from '../../../shared/domain/ingest/native.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { acceptDeps } from '../../../shared/http/deps.ts';
import { accepted } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('logs/ingest', async ({ body, principal }, ports) => {
  const { items, errors } = parseLogs(body.logs);
  return accepted(await acceptTelemetry(tenantOf(principal), { spans: [], signals: [], logs: items }, errors, acceptDeps(ports)));
});
