import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { apiTypesFile, generateApiTypes } from '../../../console/api-types.ts';

it("the console's API types are those of the OpenAPI document as the schemas build it now (else: npm run api-types)", async () => {
  const committed = await readFile(apiTypesFile, 'utf8');
  expect(committed === (await generateApiTypes()), 'console/src/api/schema.d.ts is out of date: run `npm run api-types` and commit it').toBe(true);
});
