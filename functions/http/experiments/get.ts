import { getExperiment } from '../../../shared/domain/experiments/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('experiments/get', async ({ params, principal }, ports) => ok(await getExperiment(tenantOf(principal), params.id, ports)));
