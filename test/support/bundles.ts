import { join } from 'node:path';
import { type BuildResult, build } from 'esbuild';
import { catalog, httpHandlerModule, jobModule, workerModule } from '#shared/catalog.ts';
import { bundlingOf } from '../../infra/aws/service-function.ts';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');

/** Every function's handler module (relative to the project root): routes, the fallback route, queue consumers, jobs. */
export const functionModules = (): string[] => [
  ...catalog.routes.map((r) => httpHandlerModule(r.id)),
  httpHandlerModule(catalog.fallbackRoute.id),
  ...catalog.queues.map((q) => workerModule(q.consumer)),
  ...catalog.schedules.map((s) => jobModule(s.job)),
];

type Bundled<W extends boolean> = BuildResult<{ metafile: true; write: W }>;

/**
 * Bundles modules with the CDK functions' own esbuild settings (`bundlingOf` each module): in memory,
 * or into `outdir` when `write`. Output files are named after their module (`functions/http/keys/list.js`).
 * One build per distinct setting; the results are merged.
 */
export async function bundleModules<W extends boolean>(modules: readonly string[], { outdir, write }: { outdir: string; write: W }): Promise<Bundled<W>> {
  const groups = new Map<string, string[]>();
  for (const module of modules) {
    const key = JSON.stringify(bundlingOf(module));
    groups.set(key, [...(groups.get(key) ?? []), module]);
  }
  const results = await Promise.all([...groups.values()].map((group) => buildGroup(group, { outdir, write })));
  const [first, ...rest] = results;
  return {
    ...first!,
    errors: results.flatMap((r) => r.errors),
    warnings: results.flatMap((r) => r.warnings),
    outputFiles: results.every((r) => r.outputFiles) ? results.flatMap((r) => r.outputFiles!) : undefined,
    metafile: {
      inputs: Object.assign({}, first!.metafile.inputs, ...rest.map((r) => r.metafile.inputs)),
      outputs: Object.assign({}, first!.metafile.outputs, ...rest.map((r) => r.metafile.outputs)),
    },
  } as Bundled<W>;
}

function buildGroup<W extends boolean>(modules: readonly string[], { outdir, write }: { outdir: string; write: W }): Promise<Bundled<W>> {
  const settings = bundlingOf(modules[0]!);
  return build({
    entryPoints: Object.fromEntries(modules.map((m) => [m.replace(/\.ts$/, ''), join(PROJECT_ROOT, m)])),
    bundle: true,
    write,
    outdir,
    logLevel: 'error',
    format: settings.format,
    platform: settings.platform,
    target: settings.target,
    mainFields: [...settings.mainFields],
    banner: { js: settings.banner },
    minify: settings.minify,
    external: [...settings.external],
    ...(settings.define ? { define: { ...settings.define } } : {}),
    metafile: true,
  });
}
