import { NotFoundError } from '#shared/domain/errors.ts';
import { httpRoute } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('system/not-found', systemRoutes, routePorts(), async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new NotFoundError(`Route ${method} ${path}`);
});
