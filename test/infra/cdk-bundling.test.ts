import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHandlerModule } from '#shared/catalog.ts';
import { packApiDescription } from '#shared/http/openapi-document.ts';
import { apiDescription } from '#shared/schemas/openapi.ts';
import { ServiceFunction } from '../../infra/aws/service-function.ts';

/**
 * The stack tests synthesize without bundling; this one lets `NodejsFunction` run esbuild for two
 * functions, so the per-function settings of `bundlingOf` (its `define`) are shown to reach esbuild
 * through the CDK's command line, not only through the bundle tests' own builds.
 */
let outdir: string;
const bundles: Record<string, string> = {};

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'aos-cdk-bundling-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Bundling');
  const modules = { openapi: httpHandlerModule('system/openapi'), otlp: httpHandlerModule('otlp/traces') };
  const functions = Object.fromEntries(
    Object.entries(modules).map(([name, module]) => [name, new ServiceFunction(stack, name, { module, timeout: Duration.seconds(10) })]),
  );
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as { Resources: Record<string, { Type: string; Metadata?: Record<string, string> }> };
  for (const [name, fn] of Object.entries(functions)) {
    const resource = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)]!;
    bundles[name] = await readFile(join(outdir, resource.Metadata!['aws:asset:path']!, 'index.mjs'), 'utf8');
  }
}, 120_000);
afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('functions bundled by the CDK', () => {
  it('carry the OpenAPI description packed at synth time, and not the zod conversion that builds it', () => {
    expect(bundles['openapi']).toContain(JSON.stringify(packApiDescription(apiDescription())));
    expect(bundles['openapi']).not.toContain('toJSONSchema');
  });

  it('carry the SDK clients they call, bundled rather than taken from the runtime', () => {
    expect(bundles['otlp']).toContain('SendMessageBatch');
    expect(bundles['otlp']).not.toMatch(/from\s*"@aws-sdk\/client-sqs"/);
    expect(bundles['otlp']).not.toContain('AOS_PACKED_API_DESCRIPTION');
  });
});
