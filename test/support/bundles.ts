import { build, type BuildResult } from 'esbuild';
import { join } from 'node:path';
import { BUNDLING } from '../../infra/aws/service-function.ts';
import { catalog, httpHandlerModule, jobModule, workerModule } from '../../shared/catalog.ts';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');

/** Every function's handler module (relative to the project root): routes, the fallback route, queue consumers, jobs. */
export const functionModules = (): string[] => [
  ...catalog.routes.map((r) => httpHandlerModule(r.id)),
  httpHandlerModule(catalog.fallbackRoute.id),
  ...catalog.queues.map((q) => workerModule(q.consumer)),
  ...catalog.schedules.map((s) => jobModule(s.job)),
];

/**
 * Bundles modules with the CDK functions' own esbuild settings (`BUNDLING`): in memory, or into
 * `outdir` when `write`. Output files are named after their module (`functions/http/keys/list.js`).
 */
export function bundleModules<W extends boolean>(modules: readonly string[], { outdir, write }: { outdir: string; write: W }): Promise<BuildResult<{ metafile: true; write: W }>> {
  return build({
    entryPoints: Object.fromEntries(modules.map((m) => [m.replace(/\.ts$/, ''), join(PROJECT_ROOT, m)])),
    bundle: true,
    write,
    outdir,
    logLevel: 'error',
    format: BUNDLING.format,
    platform: BUNDLING.platform,
    target: BUNDLING.target,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    alias: { ...BUNDLING.alias },
    metafile: true,
  });
}
