import { NotFoundError } from '#shared/domain/errors.ts';
import { httpRoute, routePorts } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';

export const handler = httpRoute('system/not-found', systemRoutes, routePorts(), async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new NotFoundError(`Route ${method} ${path}`);
});
