import * as z from 'zod/mini';
import { keysRouteDefs } from '../../catalog.ts';
import { pageQuery } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

export const createKeyBody = z.strictObject({ name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)) });
const keyIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });

export const keysRoutes = /* @__PURE__ */ areaRoutes(keysRouteDefs, {
  'keys/create': { summary: 'Create an API key; the full key is in the answer, once', body: createKeyBody },
  'keys/list': { summary: "List the tenant's API keys (never their secrets)", query: pageQuery },
  'keys/refresh': { summary: 'Rotate an API key: a new secret, the old one stops working', params: keyIdParams },
  'keys/revoke': { summary: 'Revoke an API key; it stops authenticating at once', params: keyIdParams },
  'keys/delete': { summary: 'Delete an API key', params: keyIdParams },
} as const satisfies AreaRouteSchemas<'keys'>);
