// The local service built into plain JavaScript with esbuild, for `npm start` (start.js) and the
// benches that run the service as it does. Plain JavaScript, so that it runs with no loader.
//
// Why a build rather than tsx's loader: on Node.js 20 the loader's hooks run on a thread of their own
// (`module.register`), with a V8 heap of their own, for as long as the process lives. An idle `npm
// start` took 176 MB of RSS under tsx against 126 MB for a first build of the same commit (2026-11-30,
// one process each, 30 s after start); a trivial script 85 against 40 MB. Building takes 0.4–0.7 s.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, stop } from 'esbuild';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUILDS = join(REPO_ROOT, 'node_modules', '.cache', 'aos-local-service');
/** Builds not used for this long are removed; a running service marks its own as used every day (`keepInUse`). */
const UNUSED_BUILD_MS = 7 * 24 * 3600_000;
const IN_USE_MARK_MS = 24 * 3600_000;

/**
 * What the runtime loads by path from the repository's root, besides the entry points: every
 * function's module (`functions/…`, loaded when first invoked) and the modules it reads at start.
 */
async function serviceModules() {
  const functions = (await readdir(join(REPO_ROOT, 'functions'), { recursive: true }))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join('functions', file));
  return ['shared/config.ts', 'shared/observability/logger.ts', ...functions];
}

/**
 * Where a module of the repository is, for `import.meta` in the build: each module keeps its source
 * file's location (the runtime's repository root, dynalite's thread script, the console's
 * directory), but for the entry points, which keep their own, so that they can find the build.
 */
const sourceLocations = (entryPoints) => ({
  name: 'source-locations',
  setup(onBuild) {
    const entries = new Set(entryPoints.map((entry) => join(REPO_ROOT, entry)));
    onBuild.onLoad({ filter: /\.[cm]?[jt]s$/ }, async ({ path }) => {
      if (/[\\/]node_modules[\\/]/.test(path) || entries.has(path)) return undefined;
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
        .replaceAll('import.meta.filename', JSON.stringify(path));
      return { contents, loader: path.endsWith('.ts') ? 'ts' : 'js', resolveDir: dirname(path) };
    });
  },
});

/**
 * Builds `entryPoints` (paths from the repository's root) and the service's modules into a directory
 * named by the build's content under node_modules/.cache, unless it is there already, and answers
 * where each entry point's module is. A module keeps its path there, `.ts` becoming `.js`.
 */
export async function buildLocalService(entryPoints) {
  const started = performance.now();
  const all = [...entryPoints, ...(await serviceModules())];
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: all,
    outbase: '.',
    outdir: 'build',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // package.json's `sideEffects` is for the console's bundle: a module the service imports for its
    // effects alone (the tests' environment, zod's messages) is kept whether listed there or not.
    ignoreAnnotations: true,
    // For `NODE_OPTIONS=--enable-source-maps npm start`: off by default, it holds every module's map.
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
    plugins: [sourceLocations(entryPoints)],
  }).finally(() => stop()); // esbuild's service process would otherwise live as long as this one
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(relative(REPO_ROOT, file.path)).update('\0').update(file.contents);
  const dir = join(BUILDS, hash.digest('hex').slice(0, 16));
  if (!(await stat(dir).catch(() => undefined))) await writeBuild(dir, result.outputFiles);
  await markInUse(dir);
  await removeUnusedBuilds(dir);
  return {
    dir,
    entries: entryPoints.map((entry) => join(dir, entry.replace(/\.ts$/, '.js'))),
    builtInMs: performance.now() - started,
  };
}

const markInUse = (dir) => {
  const now = new Date();
  return utimes(dir, now, now);
};

/** Marks the build a service runs from as used, every day it runs, so that no other start removes it. */
export function keepInUse(dir) {
  setInterval(() => markInUse(dir).catch(() => {}), IN_USE_MARK_MS).unref();
}

/** Written apart, then moved into place whole: two starts at once build the same directory. */
async function writeBuild(dir, outputFiles) {
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  for (const file of outputFiles) {
    const target = join(partial, relative(join(REPO_ROOT, 'build'), file.path));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  // The build sits under node_modules, where Node.js looks for no package.json above it: without its
  // own, its modules would be read as CommonJS.
  await writeFile(join(partial, 'package.json'), '{ "type": "module" }\n');
  try {
    await rename(partial, dir);
  } catch (err) {
    await rm(partial, { recursive: true, force: true });
    if (!(await stat(dir).catch(() => undefined))) throw err;
  }
}

async function removeUnusedBuilds(current) {
  for (const name of await readdir(BUILDS)) {
    const dir = join(BUILDS, name);
    if (dir === current) continue;
    const used = await stat(dir).catch(() => undefined);
    if (used && Date.now() - used.mtimeMs > UNUSED_BUILD_MS) await rm(dir, { recursive: true, force: true });
  }
}
