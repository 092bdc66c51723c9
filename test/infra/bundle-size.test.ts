import { build } from 'esbuild';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLING } from '../../infra/aws/service-function.ts';
import { catalog, httpHandlerModule, jobModule, workerModule } from '../../shared/catalog.ts';

const ROOT = join(import.meta.dirname, '../..');
/**
 * What the bundles measure today (480–640 KB) plus headroom: a regression guard. The cold-start
 * target is 300 KB; the README's Proof section says what stands between the two.
 */
const CEILING_KB = 700;

const modules = [
  ...catalog.routes.map((r) => httpHandlerModule(r.id)),
  httpHandlerModule(catalog.fallbackRoute.id),
  ...catalog.queues.map((q) => workerModule(q.consumer)),
  ...catalog.schedules.map((s) => jobModule(s.job)),
];

describe('function bundles (the same esbuild settings as the CDK functions)', () => {
  let result: Awaited<ReturnType<typeof bundleAll>>;
  const bundleAll = () =>
    build({
      entryPoints: Object.fromEntries(modules.map((m) => [m.replace(/\.ts$/, ''), join(ROOT, m)])),
      bundle: true,
      write: false,
      outdir: join(ROOT, 'cdk.out/bundle-report'),
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
  beforeAll(async () => {
    result = await bundleAll();
  }, 120_000);

  it(`every function bundles, minified, under the ${CEILING_KB} KB regression ceiling`, () => {
    const sizes = result.outputFiles.map((f) => ({ module: f.path.slice(ROOT.length + 1), kb: Math.round(f.contents.length / 1024) }));
    expect(sizes).toHaveLength(modules.length);
    const over = sizes.filter((s) => s.kb > CEILING_KB);
    expect(over, JSON.stringify(over)).toEqual([]);
  });

  it("carries the environment credential provider only, not the node chain's SSO, STS and metadata providers", () => {
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((f) => /@aws-sdk\/(credential-provider-(node|sso|ini|web-identity|process)\/|nested-clients\/.*\/(sts|sso)\/)/.test(f))).toEqual([]);
    expect(inputs.some((f) => f.includes('@aws-sdk/credential-provider-env/'))).toBe(true);
  });
});
