import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('system/health', systemRoutes, routePorts(), async () => ok({ status: 'ok' }));
