import { readFileSync } from 'node:fs';

/**
 * The Node.js flags `npm start` runs the local service with (package.json's start script), but for
 * the module loader (`--import`): a bench that runs the service in a process of its own gives it the
 * same, so that it runs as a user's does; the bench's own process runs under tsx already, and its
 * children inherit the loader with its `execArgv`.
 */
export const START_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .map((word) => ({ word, flag: word.split('=')[0]! }))
  .filter(({ word, flag }) => word.startsWith('--') && flag !== '--import' && process.allowedNodeEnvironmentFlags.has(flag))
  .map(({ word }) => word);
