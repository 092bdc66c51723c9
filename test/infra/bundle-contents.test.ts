import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fallbackRoute, httpHandlerModule, routes } from '#shared/catalog.ts';
import { bundleModules, functionModules, PROJECT_ROOT as ROOT } from '../support/bundles.ts';

/** The functions that read or write rollups: only they carry the latency sketch. */
const ROLLUPS = [
  ...['costs', 'latency-percentiles', 'metrics', 'requests-over-time', 'success-failure', 'token-usage'].map((id) => `functions/http/analytics/${id}.js`),
  ...['create', 'get', 'list', 'update'].map((id) => `functions/http/agents/${id}.js`),
  'functions/http/profiles/regenerate.js',
  // Its totals read the rollups' counts.
  'functions/http/spans/list-traces.js',
  'functions/jobs/analytics-compaction.js',
  'functions/jobs/profile-learning.js',
  'functions/workers/ingest.js',
];

const modules = functionModules();

/**
 * What each function's bundle holds, built with the CDK functions' own esbuild settings. Bundle sizes
 * are reported by `npm run bench -- --scenario cold-start`, not capped: the cold start is the measure.
 */
describe('function bundles (the same esbuild settings as the CDK functions)', () => {
  let result: Awaited<ReturnType<typeof bundleAll>>;
  const bundleAll = () => bundleModules(modules, { outdir: join(ROOT, 'cdk.out/bundle-report'), write: false });
  beforeAll(async () => {
    result = await bundleAll();
  }, 300_000);

  it('bundles every function', () => {
    expect(result.outputFiles).toHaveLength(modules.length);
  });

  /** The functions whose bundle holds an input whose path includes `part`. */
  const bundling = (part: string) =>
    Object.entries(result.metafile.outputs)
      .filter(([, output]) => Object.keys(output.inputs).some((f) => f.includes(part)))
      .map(([file]) => file.replace(/^cdk\.out\/bundle-report\//, ''));

  it('bundles each AWS SDK client only into the functions that call its service', () => {
    const everyFunction = modules.map((m) => m.replace(/\.ts$/, '.js')).sort();
    expect(bundling('/@aws-sdk/client-dynamodb/').sort()).toEqual(everyFunction);
    expect(bundling('/@aws-sdk/client-sesv2/')).toEqual(['functions/workers/notify.js']);
    expect(bundling('/@aws-sdk/client-sns/')).toEqual(['functions/workers/notify.js']);
    expect(bundling('/@aws-sdk/client-timestream-write/')).toEqual(['functions/workers/ingest.js']);
    expect(bundling('/@aws-sdk/client-bedrock-runtime/').sort()).toEqual([
      'functions/http/profiles/regenerate.js',
      'functions/http/search/ask.js',
      'functions/jobs/profile-learning.js',
      'functions/workers/evaluate.js',
    ]);
    expect(bundling('/@aws-sdk/client-firehose/')).toEqual(['functions/workers/ingest.js']);
    // The exports routes reach their files through the Athena export runner, which presigns their links.
    const exportRoutes = ['download', 'get', 'list'].map((id) => `functions/http/exports/${id}.js`);
    expect(bundling('/@aws-sdk/client-athena/').sort()).toEqual([
      ...exportRoutes,
      'functions/http/search/ask.js',
      'functions/http/search/traces.js',
      'functions/jobs/lake-retention.js',
      'functions/workers/lake.js',
    ]);
    expect(bundling('/@duckdb/')).toEqual([]);
    const clients = new Set(Object.keys(result.metafile.inputs).flatMap((f) => /node_modules\/@aws-sdk\/(client-[^/]+)\//.exec(f)?.[1] ?? []));
    expect([...clients].sort()).toEqual([
      'client-athena',
      'client-bedrock-runtime',
      'client-dynamodb',
      'client-firehose',
      'client-s3',
      'client-secrets-manager',
      'client-sesv2',
      'client-sns',
      'client-sqs',
      'client-timestream-write',
    ]);
  });

  it("bundles Powertools' Logger, Tracer and Metrics into every function, and its batch processing into the queue consumers", () => {
    const everyFunction = modules.map((m) => m.replace(/\.ts$/, '.js')).sort();
    for (const utility of ['logger', 'tracer', 'metrics']) expect(bundling(`/@aws-lambda-powertools/${utility}/`).sort(), utility).toEqual(everyFunction);
    expect(bundling('/@aws-lambda-powertools/batch/').sort()).toEqual([
      'functions/workers/evaluate.js',
      'functions/workers/ingest.js',
      'functions/workers/lake.js',
      'functions/workers/notify.js',
    ]);
  });

  it('bundles sketches-js only into the functions that read or write rollups, and the generated OTLP codec only into the OTLP routes', () => {
    expect(bundling('/@datadog/sketches-js/').sort()).toEqual([...ROLLUPS].sort());
    expect(bundling('shared/domain/otlp/generated/otlp.js').sort()).toEqual(['functions/http/otlp/logs.js', 'functions/http/otlp/traces.js']);
  });

  it("bundles neither classic zod nor every route's schemas: the OpenAPI route carries its description packed at synth time, the others their area's schemas", () => {
    for (const path of ['node_modules/zod/v4/classic/', 'shared/schemas/routes.ts', 'shared/schemas/openapi.ts'])
      expect(existsSync(join(ROOT, path)), path).toBe(true);
    expect(bundling('/zod/v4/classic/')).toEqual([]);
    expect(bundling('shared/schemas/routes.ts')).toEqual([]);
    expect(bundling('shared/schemas/openapi.ts')).toEqual([]);
  });

  it("carries its own area's catalog rows, none of another area's", () => {
    const areaOf = (id: string) => id.split('/')[0];
    for (const route of [...routes, fallbackRoute]) {
      const bundle = result.outputFiles.find((f) => f.path.endsWith(httpHandlerModule(route.id).replace(/\.ts$/, '.js')))!.text;
      const foreign = routes.filter((other) => areaOf(other.id) !== areaOf(route.id) && bundle.includes(`"${other.path}"`));
      expect(
        foreign.map((other) => other.id),
        route.id,
      ).toEqual([]);
      if ('path' in route) expect(bundle, route.id).toContain(`"${route.path}"`);
    }
  });

  it("bundles each OTLP route's own signal mapping, not the other's", () => {
    expect(bundling('shared/domain/otlp/traces.ts')).toEqual(['functions/http/otlp/traces.js']);
    expect(bundling('shared/domain/otlp/logs.ts')).toEqual(['functions/http/otlp/logs.js']);
  });
});
