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

/** `NAME=value` words that open the start script after `cross-env`, up to the command. */
function startAssignments(): [string, string][] {
  const assignments: [string, string][] = [];
  for (const word of START_WORDS.slice(START_WORDS[0] === 'cross-env' ? 1 : 0)) {
    const match = /^(\w+)=(.*)$/.exec(word);
    if (!match) break;
    assignments.push([match[1]!, match[2]!]);
  }
  return assignments;
}

/**
 * The environment variables the start script sets before Node.js starts (`cross-env NAME=value node …`):
 * glibc's allocator reads its settings only then, so a bench's service process gets them at its spawn.
 */
export const START_ENV: Readonly<Record<string, string>> = Object.fromEntries(startAssignments());
