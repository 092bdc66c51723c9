import { filterOptions } from '../../../shared/domain/spans/queries.ts';
import { tenantOf } from '../../../shared/http/auth.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('spans/filters', async ({ principal }, ports) => ok(await filterOptions(ports.store, tenantOf(principal))));
