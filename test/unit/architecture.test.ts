import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Imports point one way: the domain declares its records, repositories and ports; `shared/store` and
 * `shared/adapters` implement them; the HTTP layer (middlewares, validation, replies) takes its ports
 * as an argument; `shared/wiring` alone puts the real ones together, for the handlers in `functions/`.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const RULES: ReadonlyArray<{ from: string; never: readonly string[] }> = [
  { from: 'shared/domain', never: ['shared/store', 'shared/adapters', 'shared/http', 'shared/wiring'] },
  { from: 'shared/store', never: ['shared/http', 'shared/wiring'] },
  { from: 'shared/adapters', never: ['shared/http', 'shared/wiring'] },
  { from: 'shared/http', never: ['shared/store', 'shared/adapters', 'shared/wiring'] },
];

/**
 * Every module a source names, as TypeScript finds them to build its program: static imports and
 * `import type`, re-exports, `import x = require()`, `require()`, dynamic `import()` and `import('…')` types.
 */
const moduleSpecifiers = (source: string): string[] => ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);

const packageImports: Record<string, unknown> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).imports ?? {};

/**
 * The path (from the root) a specifier names, or undefined for a package; a `#` alias resolves through
 * package.json `imports`, and one that none of them maps fails the test rather than pass unchecked.
 */
function resolveSpecifier(fromFile: string, specifier: string, imports: Record<string, unknown>): string | undefined {
  if (specifier.startsWith('.'))
    return relative(ROOT, resolve(ROOT, dirname(fromFile), specifier))
      .split(sep)
      .join('/');
  if (!specifier.startsWith('#')) return undefined;
  for (const [pattern, target] of Object.entries(imports)) {
    const [prefix, suffix = ''] = pattern.split('*');
    if (pattern.includes('*') ? specifier.startsWith(prefix!) && specifier.endsWith(suffix) : specifier === pattern) {
      if (typeof target !== 'string') throw new Error(`${fromFile}: ${specifier} maps to conditions this test does not resolve`);
      const matched = pattern.includes('*') ? specifier.slice(prefix!.length, specifier.length - suffix.length) : '';
      return relative(ROOT, resolve(ROOT, target.replace('*', matched)))
        .split(sep)
        .join('/');
    }
  }
  throw new Error(`${fromFile}: ${specifier} matches no entry of package.json "imports"`);
}

const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** The imports of one file (path from the root) that break a rule, as `file → specifier`. */
function forbiddenImports(file: string, source: string, imports: Record<string, unknown> = packageImports): string[] {
  const rules = RULES.filter((r) => within(file, r.from));
  return moduleSpecifiers(source)
    .filter((specifier) => {
      const target = resolveSpecifier(file, specifier, imports);
      return target !== undefined && rules.some((r) => r.never.some((dir) => within(target, dir)));
    })
    .map((specifier) => `${file} → ${specifier}`);
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(c|m)?(t|j)sx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split(sep).join('/'));
}

describe('architecture', () => {
  it.each(RULES.map((r) => [r.from, r.never.join(', ')]))('%s imports nothing from %s', (from) => {
    const files = sourcesUnder(from);
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => forbiddenImports(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('catch every form of import, and only the forbidden ones', () => {
    const file = 'shared/domain/alerts/service.ts';
    const source = [
      "import { systemClock } from '../../adapters/clock.ts';",
      "import type { Db } from '../../store/client.ts';",
      "import { type Route } from '../../http/route.ts';",
      "export { sqsQueue } from '../../adapters/queue.ts';",
      "export * from '../../store/keys.ts';",
      "import db = require('../../store/client.ts');",
      "type Keys = typeof import('../../store/keys.ts');",
      "const later = () => import('../../http/reply.ts');",
      "const old = require('../../adapters/ids.ts');",
      "import {\n  NotFoundError,\n} from '../errors.ts';",
      "import type { Store } from '../store.ts';",
      "import * as z from 'zod/mini';",
      "const storeLike = '../../store/index.ts';",
      "// import { Store } from '../../store/index.ts';",
    ].join('\n');
    expect(forbiddenImports(file, source)).toEqual([
      `${file} → ../../adapters/clock.ts`,
      `${file} → ../../store/client.ts`,
      `${file} → ../../http/route.ts`,
      `${file} → ../../adapters/queue.ts`,
      `${file} → ../../store/keys.ts`,
      `${file} → ../../store/client.ts`,
      `${file} → ../../store/keys.ts`,
      `${file} → ../../http/reply.ts`,
      `${file} → ../../adapters/ids.ts`,
    ]);
    expect(
      forbiddenImports('shared/store/users.ts', "import { sha256 } from '../domain/accounts/secrets.ts';\nimport { reply } from '../http/reply.ts';"),
    ).toEqual(['shared/store/users.ts → ../http/reply.ts']);
    expect(
      forbiddenImports('shared/http/route.ts', "import type { Store } from '../domain/store.ts';\nimport { composeStore } from '../store/index.ts';"),
    ).toEqual(['shared/http/route.ts → ../store/index.ts']);
    expect(
      forbiddenImports('shared/wiring/routes.ts', "import type { RoutePorts } from '../http/route.ts';\nimport { composeStore } from '../store/index.ts';"),
    ).toEqual([]);
  });

  it('resolve `#` aliases as package.json "imports" maps them, and refuse an alias nothing maps', () => {
    const file = 'shared/domain/alerts/service.ts';
    const imports = { '#shared/*': './shared/*', '#clock': './shared/adapters/clock.ts' };
    const source = [
      "import type { Store } from '#shared/domain/store.ts';",
      "import { composeStore } from '#shared/store/index.ts';",
      "import type { Route } from '#shared/http/route.ts';",
      "import { systemClock } from '#clock';",
      "import { PLANS } from '#shared/domain/plans/plans.ts';",
    ].join('\n');
    expect(forbiddenImports(file, source, imports)).toEqual([`${file} → #shared/store/index.ts`, `${file} → #shared/http/route.ts`, `${file} → #clock`]);
    expect(() => forbiddenImports(file, "import { composeStore } from '#store/index.ts';", imports)).toThrow(/matches no entry/);
    expect(() => forbiddenImports(file, "import { composeStore } from '#shared/store/index.ts';", {})).toThrow(/matches no entry/);
  });

  it('hold the rules for files that exist', () => {
    for (const { from, never } of RULES) for (const dir of [from, ...never]) expect(existsSync(join(ROOT, dir)), dir).toBe(true);
  });
});
