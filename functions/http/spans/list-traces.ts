import { listTraces } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('spans/list-traces', async ({ query, principal }, ports) =>
  paged(await listTraces(ports.store, tenantOf(principal), query), query),
);
