import { acceptTelemetry } from '../../../shared/domain/ingest/accept.ts';
import { parseSpans } from '../../../shared/domain/ingest/native.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { acceptDeps } from '../../../shared/http/deps.ts';
import { accepted } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('spans/ingest', async ({ body, principal }, ports) => {
  const { items, errors } = parseSpans(body.spans);
  return accepted(await acceptTelemetry(tenantOf(principal), { spans: items, signals: [], logs: [] }, errors, acceptDeps(ports)));
});
