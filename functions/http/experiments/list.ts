import { listExperiments } from '../../../shared/domain/experiments/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { paged } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('experiments/list', async ({ query, principal }, ports) =>
  paged(await listExperiments(tenantOf(principal), query, ports), query),
);
