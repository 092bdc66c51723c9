import { listExports } from '#shared/domain/lake/exports.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { cursorPaged } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { exportsRoutes } from '#shared/schemas/routes/exports.ts';
import { exportsRepository } from '#shared/store/exports.ts';
import { exportRunner } from '#shared/wiring/lake.ts';
import { routePorts } from '#shared/wiring/routes.ts';

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
