// Writes console/src/api/schema.d.ts: the TypeScript types of the API, generated from the OpenAPI
// document that the zod schemas build (the same one `GET /api/openapi.json` serves).
// `npx tsx console/scripts/generate-api-types.ts`; a test fails when the committed file drifts.
import { writeFile } from 'node:fs/promises';
import { apiTypesFile, generateApiTypes } from '../api-types.ts';

await writeFile(apiTypesFile, await generateApiTypes());
console.log(`wrote ${apiTypesFile}`);
