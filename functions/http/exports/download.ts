import { exportDownload } from '#shared/domain/lake/exports.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { fileAttachment, redirect } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { exportsRoutes } from '#shared/schemas/routes/exports.ts';
import { exportsRepository } from '#shared/store/exports.ts';
import { exportRunner } from '#shared/wiring/lake.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute(
  'exports/download',
  exportsRoutes,
  routePorts({ exports: exportsRepository }, { exportRunner }),
  async ({ params, principal }, ports) => {
    const download = await exportDownload(tenantOf(principal), params.id, ports);
    return 'redirect' in download ? redirect(download.redirect) : fileAttachment(download);
  },
);
