import { readFileSync } from 'node:fs';

const START_WORDS = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start.split(
  /\s+/,
);

/**
 * The Node.js flags `npm start` runs the local service with (package.json's start script), but for
 * the module loader (`--import`): a bench that runs the service in a process of its own gives it the
 * same, so that it runs as a user's does; the bench's own process runs under tsx already, and its
 * children inherit the loader with its `execArgv`.
 */
export const START_FLAGS: readonly string[] = START_WORDS.map((word) => ({ word, flag: word.split('=')[0]! }))
  .filter(({ word, flag }) => word.startsWith('--') && flag !== '--import' && process.allowedNodeEnvironmentFlags.has(flag))
  .map(({ word }) => word);

/**
 * The environment variables the start script sets before Node.js starts (`cross-env NAME=value node …`):
 * glibc's allocator reads its settings only then, so a bench's service process gets them at its spawn.
 */
export const START_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  START_WORDS.slice(0, START_WORDS.indexOf('node'))
    .map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word))
    .filter((match) => match !== null)
    .map(([, name, value]) => [name!, value!]),
);
