import { NotFoundError } from '../../../shared/domain/errors.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';

export const handler = httpRoute('system/not-found', routePorts(), async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new NotFoundError(`Route ${method} ${path}`);
});
