import { execFile } from 'node:child_process';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILD_INPUTS_FILE, type BuildInputs, consoleDir, hashInputs, repoRoot } from './build-inputs.ts';

export const consoleDistDir = join(consoleDir, 'dist');

/** Whether `dir` holds a build of the sources as they are now. */
export async function isBuildFresh(dir = consoleDistDir): Promise<boolean> {
  let inputs: BuildInputs;
  try {
    inputs = JSON.parse(await readFile(join(dir, BUILD_INPUTS_FILE), 'utf8')) as BuildInputs;
    await readFile(join(dir, 'index.html'));
  } catch {
    return false;
  }
  return inputs.hash === (await hashInputs(inputs.files));
}

export interface EnsureBuildResult {
  dir: string;
  /** Milliseconds spent building; 0 when the build on disk was fresh. */
  builtInMs: number;
}

/**
 * The console's production build, made now if it is missing or any of its inputs changed since it
 * was made. Built beside and then moved into place, so a server never reads a half-written build.
 */
export async function ensureConsoleBuild(dir = consoleDistDir): Promise<EnsureBuildResult> {
  if (await isBuildFresh(dir)) return { dir, builtInMs: 0 };
  const startedAt = Date.now();
  const staging = `${dir}.building-${process.pid}`;
  // Loaded only to build: importing Vite takes seconds, checking the build's inputs milliseconds.
  const [{ build }, { default: config }] = await Promise.all([import('vite'), import('./vite.config.ts')]);
  // Vite builds for the NODE_ENV it finds (a test runner sets `test`): React's production build needs `production`.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ ...config, configFile: false, mode: 'production', build: { ...config.build, outDir: staging, emptyOutDir: true } });
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    await rm(staging, { recursive: true, force: true });
  }
  return { dir, builtInMs: Date.now() - startedAt };
}

const BUILD_SCRIPT = join(consoleDir, 'scripts', 'build.ts');

/**
 * `ensureConsoleBuild` in a Node.js process of its own, for a long-running process (the local
 * service) that must not keep what building took: Vite and Rollup leave hundreds of MB behind in the
 * process that builds, in V8's heap and in native allocators', which neither returns to the system
 * soon. Measured with `npm start` after a change to the console's sources: 393–474 MB of RSS over
 * the 48 s after the service answered when it built in its own process, 127–158 MB when the build
 * ran apart (three starts each). A failed build rejects with what the build printed.
 */
export async function ensureConsoleBuildApart(): Promise<EnsureBuildResult> {
  if (await isBuildFresh()) return { dir: consoleDistDir, builtInMs: 0 };
  const startedAt = Date.now();
  try {
    await promisify(execFile)(process.execPath, ['--import=tsx', BUILD_SCRIPT], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`The console's build failed:\n${[stdout, stderr].filter(Boolean).join('\n').trim() || String(err)}`);
  }
  return { dir: consoleDistDir, builtInMs: Date.now() - startedAt };
}
