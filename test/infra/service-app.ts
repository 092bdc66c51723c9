import { readFileSync } from 'node:fs';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { type Catalog, catalog } from '#shared/catalog.ts';
import { type BuildAppOptions, buildApp, type ServiceApp } from '../../infra/aws/app.ts';
import type { ServiceFunction } from '../../infra/aws/service-function.ts';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/**
 * The app as `cdk synth` builds it (cdk.json's context) but without bundling: the tests read templates,
 * and NodejsFunction skips esbuild for stacks outside `aws:cdk:bundling-stacks`.
 */
export function buildTestApp(options: BuildAppOptions = {}): ServiceApp {
  return buildApp({
    ...options,
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...options.context },
  });
}

/** The service's catalog plus a schedule whose job is a test fixture (jobModule paths are project-relative). */
export const catalogWithSchedule: Catalog = {
  ...catalog,
  schedules: [{ id: 'fixture-sweep', job: '../../test/infra/fixtures/scheduled-job', everyMinutes: 5 }],
};

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

export const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

export const logicalIdOf = (construct: IConstruct): string => Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);

const templates = new WeakMap<Stack, Template>();

/** The template of the stack that holds the construct. */
export function templateOf(construct: IConstruct): Template {
  const stack = Stack.of(construct);
  const template = templates.get(stack) ?? Template.fromStack(stack);
  templates.set(stack, template);
  return template;
}

/** The stacks that hold functions: the route stacks and the workers stack. */
export const codeStacksOf = ({ routeStacks, workers }: ServiceApp): Stack[] => [...routeStacks, workers];

/** Every function of the app: routes (the fallback's included), consumers and jobs. */
export const functionsOf = ({ routeFunctions, workers }: ServiceApp): ServiceFunction[] => [
  ...routeFunctions.values(),
  ...workers.consumerFunctions.values(),
  ...workers.jobFunctions.values(),
];

/** The Lambda function resource of a ServiceFunction, from its own stack's template. */
export const functionResourceOf = (fn: ServiceFunction): { Properties: Record<string, unknown> } =>
  templateOf(fn).findResources('AWS::Lambda::Function')[logicalIdOf(fn)] as { Properties: Record<string, unknown> };

export const environmentOf = (fn: ServiceFunction): Record<string, unknown> =>
  (functionResourceOf(fn).Properties.Environment as { Variables: Record<string, unknown> }).Variables;

/** Every statement of every policy attached to the function's role (the policies of the function's stack). */
export function statementsOf(fn: ServiceFunction): Statement[] {
  const roleRef = { Ref: logicalIdOf(fn.role) };
  const policies = Object.values(templateOf(fn).findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify(roleRef)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

export const grantsAction = (statements: Statement[], action: string): boolean =>
  statements.some((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes(action));
