import { exportRunner } from '#shared/adapters/lake-ports.ts';
import { exportDownload } from '#shared/domain/lake/exports.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { fileAttachment, redirect } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { exportsRoutes } from '#shared/schemas/routes/exports.ts';
import { exportsRepository } from '#shared/store/exports.ts';

export const handler = httpRoute(
  'exports/download',
  exportsRoutes,
  routePorts({ exports: exportsRepository }, { exportRunner }),
  async ({ params, principal }, ports) => {
    const download = await exportDownload(tenantOf(principal), params.id, ports);
    return 'redirect' in download ? redirect(download.redirect) : fileAttachment(download);
  },
);
