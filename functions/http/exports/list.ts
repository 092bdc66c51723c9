import { exportRunner } from '#shared/adapters/lake-ports.ts';
import { listExports } from '#shared/domain/lake/exports.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { cursorPaged } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { exportsRoutes } from '#shared/schemas/routes/exports.ts';
import { exportsRepository } from '#shared/store/exports.ts';

export const handler = httpRoute(
  'exports/list',
  exportsRoutes,
  routePorts({ exports: exportsRepository }, { exportRunner }),
  async ({ query, principal }, ports) => {
    const tenantId = tenantOf(principal);
    const page = await listExports(tenantId, query, { key: (await ports.signing()).cursorKey, tenantId }, ports);
    return cursorPaged(page.data, page.pagination);
  },
);
