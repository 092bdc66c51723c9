import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, type Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type Catalog, catalog as defaultCatalog } from '#shared/catalog.ts';
import { ApiStack } from './api-stack.ts';
import { ConsoleStack } from './console-stack.ts';
import { LakeStack } from './lake-stack.ts';
import { RoutesStack } from './routes-stack.ts';
import type { ServiceFunction } from './service-function.ts';
import { routeStackLayout } from './stack-layout.ts';
import { StatefulStack } from './stateful-stack.ts';
import { WorkersStack } from './workers-stack.ts';

export interface BuildAppOptions {
  /** Context in addition to what the CDK CLI passes (cdk.json, `-c`). */
  readonly context?: Record<string, unknown>;
  /** @default the service's catalog */
  readonly catalog?: Catalog;
}

export interface ServiceApp {
  readonly app: App;
  readonly stateful: StatefulStack;
  /** The trace lake: Firehose, Iceberg tables on S3 in Glue, the Athena workgroup. */
  readonly lake: LakeStack;
  readonly api: ApiStack;
  /** One per route stack of the layout (infra/aws/stack-layout.ts). */
  readonly routeStacks: readonly RoutesStack[];
  readonly workers: WorkersStack;
  /** Every stack of the app, each after the stacks it refers to. */
  readonly stacks: readonly Stack[];
  /** By route id, the fallback route's included, whichever route stack holds it. */
  readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The console: S3 + CloudFront, with the API at `/api` on its origin. */
  readonly console: ConsoleStack;
}

const SERVICE = 'AgentObservability';

/**
 * The service's CDK app: environment-agnostic stacks, checked by cdk-nag's AWS Solutions rules at synthesis.
 * The stateless part is top-level stacks rather than nested ones, each within 70% of CloudFormation's quotas
 * (test/infra/stack-limits.test.ts; docs/operations.md): each deploys, diffs and rolls back on its own, and
 * reads what it needs of another stack's outputs at deploy time (weak references, cdk.json), so no export
 * ever blocks an update. The upgrade from the single stateless stack then works in one `cdk deploy --all`:
 * the API stack drops the old routes before the route stacks create them. Nested in that stack, the new
 * routes would have been created within the same update, before the old ones were deleted, and API
 * Gateway refuses a second route with the same key.
 *
 * A stack added later (the console, the trace lake) is built here and added to `stacks`.
 */
export function buildApp(options: BuildAppOptions = {}): ServiceApp {
  const catalog = options.catalog ?? defaultCatalog;
  const app = new App({ context: options.context });
  const stateful = new StatefulStack(app, `${SERVICE}-Stateful`, {
    description: "Agent Observability Service: table, queues, signing seed, the console distribution's origin secret",
    catalog,
  });
  // The API stack keeps the name the whole stateless part had before it was split: a deployment made then
  // keeps its API, URL and default JWT issuer, and loses its functions and routes before the route stacks add them.
  const api = new ApiStack(app, `${SERVICE}-Stateless`, {
    description: 'Agent Observability Service: HTTP API and its stage',
    catalog,
  });
  const lake = new LakeStack(app, `${SERVICE}-Lake`, {
    description: 'Agent Observability Service: the trace lake (Firehose, Iceberg on S3, Glue, Athena)',
  });
  const code = { stateful, api, lake };
  const routeStacks = routeStackLayout(catalog).map(
    ({ name, routes, fallbackRoute }) =>
      new RoutesStack(app, `${SERVICE}-Routes-${name}`, {
        description: `Agent Observability Service: ${name} routes and their functions`,
        ...code,
        routes,
        fallbackRoute,
      }),
  );
  const workers = new WorkersStack(app, `${SERVICE}-Workers`, {
    description: 'Agent Observability Service: queue consumers and schedules',
    ...code,
    queues: catalog.queues,
    schedules: catalog.schedules,
  });
  const console = new ConsoleStack(app, `${SERVICE}-Console`, {
    description: 'Agent Observability Service: the console (S3 + CloudFront) with the API at /api',
    api: api.api,
    originSecret: stateful.originSecret,
  });

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return {
    app,
    stateful,
    lake,
    api,
    routeStacks,
    workers,
    stacks: [stateful, lake, api, ...routeStacks, workers, console],
    routeFunctions: new Map(routeStacks.flatMap((stack) => [...stack.routeFunctions])),
    console,
  };
}

const isEntryPoint = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntryPoint) buildApp().app.synth();
