import { ok } from '#shared/http/reply.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';

export const handler = httpRoute('system/health', systemRoutes, routePorts(), async () => ok({ status: 'ok' }));
