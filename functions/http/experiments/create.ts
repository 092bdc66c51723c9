import { createExperiment } from '../../../shared/domain/experiments/service.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { created } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('experiments/create', async ({ body, principal }, ports) => created(await createExperiment(tenantOf(principal), body, ports)));
