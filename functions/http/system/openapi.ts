import { config } from '#shared/config.ts';
import { servedOpenApiDocument } from '#shared/http/openapi-document.ts';
import { raw } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { systemRoutes } from '#shared/schemas/routes/system.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('system/openapi', systemRoutes, routePorts(), async () => raw(200, await servedOpenApiDocument(config.publicAppUrl)));
