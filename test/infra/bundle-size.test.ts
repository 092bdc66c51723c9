import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fallbackRoute, httpHandlerModule, routes } from '../../shared/catalog.ts';
import { bundleModules, functionModules, PROJECT_ROOT as ROOT } from '../support/bundles.ts';

/** The cold-start target: every function, a new one included, bundles within it (minified, 1 KB = 1,024 bytes). */
const TARGET_KB = 300;
/** The functions that read or write rollups: only they carry the latency sketch. */
const ROLLUPS = [
  ...['costs', 'latency-percentiles', 'metrics', 'requests-over-time', 'success-failure', 'token-usage'].map((id) => `functions/http/analytics/${id}.js`),
  ...['create', 'get', 'list', 'update'].map((id) => `functions/http/agents/${id}.js`),
  'functions/http/profiles/regenerate.js',
  'functions/jobs/analytics-compaction.js',
  'functions/jobs/profile-learning.js',
  'functions/workers/ingest.js',
];

const modules = functionModules();

describe('function bundles (the same esbuild settings as the CDK functions)', () => {
  let result: Awaited<ReturnType<typeof bundleAll>>;
  const bundleAll = () => bundleModules(modules, { outdir: join(ROOT, 'cdk.out/bundle-report'), write: false });
  beforeAll(async () => {
    result = await bundleAll();
  }, 120_000);

  it(`bundles every function, minified, within the ${TARGET_KB} KB target`, () => {
    const sizes = result.outputFiles.map((f) => ({ module: f.path.slice(ROOT.length + 1).replace(/^cdk\.out\/bundle-report\//, ''), kb: f.contents.length / 1024 }));
    expect(sizes).toHaveLength(modules.length);
    expect(sizes.filter(({ kb }) => kb > TARGET_KB)).toEqual([]);
  });

  /** The functions whose bundle holds an input whose path includes `part`. */
  const bundling = (part: string) =>
    Object.entries(result.metafile.outputs)
      .filter(([, output]) => Object.keys(output.inputs).some((f) => f.includes(part)))
      .map(([file]) => file.replace(/^cdk\.out\/bundle-report\//, ''));

  it('bundles the DynamoDB client everywhere, SNS into the notify worker, and no other SDK client (shared/adapters/aws-call.ts makes the other calls)', () => {
    const everyFunction = modules.map((m) => m.replace(/\.ts$/, '.js')).sort();
    expect(bundling('/@aws-sdk/client-dynamodb/').sort()).toEqual(everyFunction);
    expect(bundling('/@aws-sdk/client-sns/')).toEqual(['functions/workers/notify.js']);
    const clients = new Set(Object.keys(result.metafile.inputs).flatMap((f) => /node_modules\/@aws-sdk\/(client-[^/]+)\//.exec(f)?.[1] ?? []));
    expect([...clients].sort()).toEqual(['client-dynamodb', 'client-sns']);
  });

  it("bundles neither the SDK's event-stream codec nor mnemonist's LRU: every function carries their stand-ins", () => {
    const everyFunction = modules.map((m) => m.replace(/\.ts$/, '.js')).sort();
    expect(bundling('/@smithy/core/dist-es/submodules/event-streams/')).toEqual([]);
    expect(bundling('infra/aws/no-event-streams.ts').sort()).toEqual(everyFunction);
    expect(bundling('/node_modules/mnemonist/')).toEqual([]);
    expect(bundling('/node_modules/obliterator/')).toEqual([]);
    expect(bundling('infra/aws/lru-cache.ts').sort()).toEqual(everyFunction);
  });

  it('bundles the latency sketch only into the functions that read or write rollups, and protobufjs into none (the OTLP routes read the wire themselves)', () => {
    expect(bundling('shared/domain/analytics/ddsketch.ts').sort()).toEqual([...ROLLUPS].sort());
    expect(bundling('/protobufjs/')).toEqual([]);
    expect(bundling('shared/domain/otlp/protobuf.ts').sort()).toEqual(['functions/http/otlp/logs.js', 'functions/http/otlp/traces.js']);
  });

  it("bundles neither classic zod nor every route's schemas: the OpenAPI route carries its description packed at synth time, the others their area's schemas", () => {
    for (const path of ['node_modules/zod/v4/classic/', 'shared/schemas/routes.ts', 'shared/schemas/openapi.ts']) expect(existsSync(join(ROOT, path)), path).toBe(true);
    expect(bundling('/zod/v4/classic/')).toEqual([]);
    expect(bundling('shared/schemas/routes.ts')).toEqual([]);
    expect(bundling('shared/schemas/openapi.ts')).toEqual([]);
  });

  it("carries its own area's catalog rows, none of another area's", () => {
    const areaOf = (id: string) => id.split('/')[0];
    for (const route of [...routes, fallbackRoute]) {
      const bundle = result.outputFiles.find((f) => f.path.endsWith(httpHandlerModule(route.id).replace(/\.ts$/, '.js')))!.text;
      const foreign = routes.filter((other) => areaOf(other.id) !== areaOf(route.id) && bundle.includes(`"${other.path}"`));
      expect(foreign.map((other) => other.id), route.id).toEqual([]);
      if ('path' in route) expect(bundle, route.id).toContain(`"${route.path}"`);
    }
  });

  it("bundles each OTLP route's own signal mapping, not the other's", () => {
    expect(bundling('shared/domain/otlp/traces.ts')).toEqual(['functions/http/otlp/traces.js']);
    expect(bundling('shared/domain/otlp/logs.ts')).toEqual(['functions/http/otlp/logs.js']);
  });

  it("carries the environment credential provider only, not the node chains' SSO, STS and metadata providers, nor any token provider", () => {
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((f) => /@aws-sdk\/(credential-provider-(node|sso|ini|web-identity|process)\/|token-providers\/|nested-clients\/.*\/(sts|sso|sso-oidc|signin)\/)/.test(f))).toEqual([]);
    expect(inputs.some((f) => f.includes('@aws-sdk/credential-provider-env/'))).toBe(true);
  });
});
