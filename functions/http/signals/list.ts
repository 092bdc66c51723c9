import { listSignals } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('signals/list', async ({ query, principal }, ports) =>
  paged(await listSignals(ports.store, tenantOf(principal), query), query),
);
