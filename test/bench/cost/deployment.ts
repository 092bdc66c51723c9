import { Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { ServiceFunction } from '../../../infra/aws/service-function.ts';
import { buildTestApp, functionsOf } from '../../infra/service-app.ts';

export interface DeployedFunction {
  /** The handler module, as the catalog and the local runtime name it (`functions/http/spans/ingest.ts`). */
  module: string;
  memoryMb: number;
  architecture: string;
}

/** What `cdk deploy` would configure, read from the CDK app itself (built without bundling). */
export interface Deployment {
  functions: Map<string, DeployedFunction>;
  /** The evaluate worker's BEDROCK_MODEL_ID. */
  judgeModelId: string;
}

const cfnOf = (fn: ServiceFunction) => fn.node.defaultChild as CfnFunction;

function describe(fn: ServiceFunction): DeployedFunction {
  const cfn = cfnOf(fn);
  // ServiceFunction puts its module path in the description.
  return { module: cfn.description!, memoryMb: cfn.memorySize!, architecture: cfn.architectures?.[0] ?? 'x86_64' };
}

function environmentOf(fn: ServiceFunction): Record<string, string> {
  const environment = Stack.of(fn).resolve(cfnOf(fn).environment) as { variables?: Record<string, string> } | undefined;
  return environment?.variables ?? {};
}

export function deployment(): Deployment {
  const app = buildTestApp();
  const all = functionsOf(app);
  const evaluate = app.workers.consumerFunctions.get('evaluate');
  const judgeModelId = evaluate && environmentOf(evaluate)['BEDROCK_MODEL_ID'];
  if (!judgeModelId) throw new Error('the CDK app configures no BEDROCK_MODEL_ID on the evaluate worker');
  return { functions: new Map(all.map((fn) => [describe(fn).module, describe(fn)])), judgeModelId };
}
