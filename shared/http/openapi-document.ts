import { gunzipSync, gzipSync } from 'node:zlib';
import { API_BASE_PATH } from '../catalog.ts';
import type { ApiDescription } from '../schemas/openapi.ts';

/** The complete document of a service that answers at `serverUrl` (with or without the `/api` base path). */
export function withServer({ openapi, info, ...rest }: ApiDescription, serverUrl: string) {
  const url = serverUrl.endsWith(API_BASE_PATH) ? serverUrl : `${serverUrl}${API_BASE_PATH}`;
  return { openapi, info, servers: [{ url }], ...rest };
}

/** The global the bundler defines in the OpenAPI function (`bundlingOf` in infra/aws/service-function.ts). */
export const PACKED_DESCRIPTION_GLOBAL = 'AOS_PACKED_API_DESCRIPTION';
declare const AOS_PACKED_API_DESCRIPTION: string | undefined;

/** The description as the bundle carries it: gzipped JSON in base64 (about 17 KB for 233 KB of JSON). */
export const packApiDescription = (description: ApiDescription): string => gzipSync(JSON.stringify(description)).toString('base64');

const unpack = (packed: string): ApiDescription => JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8')) as ApiDescription;

async function loadApiDescription(): Promise<ApiDescription> {
  // An if/else, not an early return: esbuild leaves a dynamic import out of the bundle only when it sits in a branch it drops.
  if (typeof AOS_PACKED_API_DESCRIPTION === 'string') {
    return unpack(AOS_PACKED_API_DESCRIPTION);
  } else {
    const { apiDescription } = await import('../schemas/openapi.ts');
    return apiDescription();
  }
}

let description: Promise<ApiDescription> | undefined;

/**
 * The OpenAPI document this service serves. A bundled function carries the description built at synth
 * time, so it neither bundles zod's JSON Schema conversion nor runs it at cold start; where the sources
 * run (local runtime, tests) the description is built from the zod schemas, once.
 */
export async function servedOpenApiDocument(serverUrl: string) {
  description ??= loadApiDescription().catch((err: unknown) => {
    description = undefined; // the next request tries again
    throw err;
  });
  return withServer(await description, serverUrl);
}
