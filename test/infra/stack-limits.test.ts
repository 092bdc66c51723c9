import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { buildTestApp, catalogWithSchedule } from './service-app.ts';

/**
 * CloudFormation's quotas per template that the service can reach: a deploy fails past any of them.
 * A template over 51,200 bytes goes through S3, whose limit applies (1 MB; taken as 10^6 bytes here).
 */
const LIMITS = { resources: 500, outputs: 200, parameters: 200, templateBytes: 1_000_000 };
/** Every stack keeps this share of each quota for the routes, the console and the lake that come next. */
const MAX_SHARE = 0.7;

/** As the CDK CLI synthesizes: path and asset metadata on the resources, and the CDKMetadata resource. */
const CLI_CONTEXT = {
  [cxapi.PATH_METADATA_ENABLE_CONTEXT]: true,
  [cxapi.ASSET_RESOURCE_METADATA_ENABLED_CONTEXT]: true,
  [cxapi.ANALYTICS_REPORTING_ENABLED_CONTEXT]: true,
};

interface Usage {
  resources: number;
  outputs: number;
  parameters: number;
  templateBytes: number;
}

/** What each stack of the app (nested stacks included) uses of the quotas, read from the template files synthesized. */
function usageOf(app: App): [string, Usage][] {
  const assembly = app.synth();
  return app.node
    .findAll()
    .filter(Stack.isStack)
    .map((stack) => {
      const file = join(assembly.directory, stack.templateFile);
      const template = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown> | undefined>;
      const count = (section: string) => Object.keys(template[section] ?? {}).length;
      return [
        stack.node.path,
        { resources: count('Resources'), outputs: count('Outputs'), parameters: count('Parameters'), templateBytes: statSync(file).size },
      ];
    });
}

describe.each([
  ['the service', {}],
  ['the service with a schedule', { catalog: catalogWithSchedule }],
])('CloudFormation quotas of %s', (_, options) => {
  const service = buildTestApp({ ...options, context: CLI_CONTEXT });
  const usage = usageOf(service.app);

  it('are measured for every stack of the app', () => {
    expect(usage.map(([path]) => path).sort()).toEqual(service.stacks.map((stack) => stack.node.path).sort());
  });

  it.each(usage)(`%s uses at most ${MAX_SHARE * 100}% of each quota`, (_path, used) => {
    for (const [quota, limit] of Object.entries(LIMITS) as [keyof Usage, number][]) {
      expect(used[quota], `${quota}: ${used[quota]} of ${limit}`).toBeLessThanOrEqual(limit * MAX_SHARE);
    }
  });
});
