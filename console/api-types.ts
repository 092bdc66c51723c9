import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { withServer } from '#shared/http/openapi-document.ts';
import { apiDescription } from '#shared/schemas/openapi.ts';

export const apiTypesFile = fileURLToPath(new URL('./src/api/schema.d.ts', import.meta.url));

const HEADER = `// Generated from the service's OpenAPI document by console/scripts/generate-api-types.ts; do not edit.\n\n`;

/** The console's API types, from the document built in this process from the zod schemas. */
export async function generateApiTypes(): Promise<string> {
  const document = withServer(apiDescription(), '/api');
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]);
  return HEADER + astToString(ast);
}
