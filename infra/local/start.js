// `npm start`: builds the service (build-service.js says why; about half a second, the files written
// only when they changed) and runs it. main.ts is what runs; PORT, HOST and DATA_DIR as there.
import { pathToFileURL } from 'node:url';
import { buildLocalService, keepInUse } from './build-service.js';

const built = await buildLocalService(['infra/local/main.ts']).catch((err) => {
  console.error(`The service's build failed:\n${err.message}`);
  process.exit(1);
});
keepInUse(built.dir);
await import(pathToFileURL(built.entries[0]).href);
