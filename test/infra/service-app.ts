import { readFileSync } from 'node:fs';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildApp, type BuildAppOptions, type ServiceApp } from '../../infra/aws/app.ts';
import type { ServiceFunction } from '../../infra/aws/service-function.ts';
import { catalog, type Catalog } from '../../shared/catalog.ts';

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

export const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

export const logicalIdOf = (stack: Stack, construct: IConstruct): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Every statement of every policy attached to the function's role. */
export function statementsOf(template: Template, stack: Stack, fn: ServiceFunction): Statement[] {
  const roleRef = { Ref: logicalIdOf(stack, fn.role) };
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify(roleRef)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

export const grantsAction = (statements: Statement[], action: string): boolean =>
  statements.some((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes(action));
