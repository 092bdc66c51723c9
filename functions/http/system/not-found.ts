import { NotFoundError } from '../../../shared/domain/errors.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('system/not-found', async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new NotFoundError(`Route ${method} ${path}`);
});
