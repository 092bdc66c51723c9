import { readFileSync } from 'node:fs';

/**
 * The Node.js flags `npm start` runs the local service with (package.json's start script; a flag of
 * tsx's own is left out): a bench that runs the service in a process of its own gives it the same, so
 * that it runs as a user's does.
 */
export const START_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--') && process.allowedNodeEnvironmentFlags.has(word.split('=')[0]!));
