import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { catalog as defaultCatalog, type Catalog } from '../../shared/catalog.ts';
import { ConsoleStack } from './console-stack.ts';
import { StatefulStack } from './stateful-stack.ts';
import { StatelessStack } from './stateless-stack.ts';

export interface BuildAppOptions {
  /** Context in addition to what the CDK CLI passes (cdk.json, `-c`). */
  readonly context?: Record<string, unknown>;
  /** @default the service's catalog */
  readonly catalog?: Catalog;
}

export interface ServiceApp {
  readonly app: App;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  readonly console: ConsoleStack;
}

/** The service's CDK app: environment-agnostic stacks, checked by cdk-nag's AWS Solutions rules at synthesis. */
export function buildApp(options: BuildAppOptions = {}): ServiceApp {
  const catalog = options.catalog ?? defaultCatalog;
  const app = new App({ context: options.context });
  const stateful = new StatefulStack(app, 'AgentObservability-Stateful', {
    description: 'Agent Observability Service: table, queues, signing seed',
    catalog,
  });
  const stateless = new StatelessStack(app, 'AgentObservability-Stateless', {
    description: 'Agent Observability Service: HTTP API, functions, schedules',
    stateful,
    catalog,
  });
  const console = new ConsoleStack(app, 'AgentObservability-Console', {
    description: 'Agent Observability Service: the console (S3 + CloudFront) with the API at /api',
    api: stateless.api,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stateful, stateless, console };
}

const isEntryPoint = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntryPoint) buildApp().app.synth();
