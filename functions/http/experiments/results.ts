import { resultsOfExperiment } from '../../../shared/domain/experiments/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('experiments/results', async ({ params, principal }, ports) =>
  ok(await resultsOfExperiment(tenantOf(principal), params.id, ports)),
);
