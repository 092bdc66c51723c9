import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Plugin } from 'vite';

export const consoleDir = import.meta.dirname;
export const repoRoot = resolve(consoleDir, '..');
/** Where the record of a build's inputs lives, inside the build. */
export const BUILD_INPUTS_FILE = 'build-inputs.json';

/**
 * Files that shape every build besides the modules it bundles: the configuration, the locked
 * dependencies, and package.json (its `sideEffects` decide which modules the bundler may drop).
 */
const ALWAYS = ['package.json', 'package-lock.json', 'console/index.html', 'console/vite.config.ts', 'console/build-inputs.ts', 'console/boot-plugin.ts'];

export interface BuildInputs {
  /** Repository-relative paths of the source files the build bundled. */
  files: string[];
  hash: string;
}

/** SHA-256 over each input's path and content; a missing file hashes as missing. */
export async function hashInputs(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...ALWAYS, ...files].sort()) {
    hash.update(`${file}\0`);
    hash.update(await readFile(join(repoRoot, file)).catch(() => '\0missing\0'));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Records, next to the build, the source files it bundled (its module graph, outside node_modules)
 * and their hash: the build is stale exactly when one of them changed, so a server can rebuild only then.
 */
export function recordBuildInputs(): Plugin {
  let outDir = '';
  return {
    name: 'aos-record-build-inputs',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async writeBundle() {
      const files = [...this.getModuleIds()]
        .map((id) => id.split('?')[0]!)
        .filter((id) => isAbsolute(id) && !id.includes('/node_modules/'))
        .map((id) => relative(repoRoot, id))
        .filter((path) => !path.startsWith('..'));
      const unique = [...new Set(files)].sort();
      const inputs: BuildInputs = { files: unique, hash: await hashInputs(unique) };
      await writeFile(join(outDir, BUILD_INPUTS_FILE), JSON.stringify(inputs, null, 1));
    },
  };
}
