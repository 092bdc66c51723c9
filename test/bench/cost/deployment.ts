import { Stack } from 'aws-cdk-lib';
import type { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnTable } from 'aws-cdk-lib/aws-glue';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { LakeStack } from '../../../infra/aws/lake-stack.ts';
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
  lake: LakeLayout;
}

/** How the lake stack lays the trace lake out on S3, which is what Athena reads and bills. */
export interface LakeLayout {
  /** Per table: its Iceberg partition transforms (e.g. `bucket[16]` of tenant_id, `truncate[86400000]` of the time) and its data files' format and codec. */
  tables: Map<string, { partitions: Array<{ source: string; transform: string }>; format: string; codec: string }>;
  /** The workgroup's cutoff: a query scanning more is cancelled. */
  scanLimitBytes: number;
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
  return { functions: new Map(all.map((fn) => [describe(fn).module, describe(fn)])), judgeModelId, lake: lakeLayout(app.lake) };
}

function lakeLayout(lake: LakeStack): LakeLayout {
  const tables: LakeLayout['tables'] = new Map();
  for (const table of lake.node.findAll().filter((c): c is CfnTable => c instanceof CfnTable)) {
    const input = lake.resolve(table.openTableFormatInput) as {
      icebergInput: {
        icebergTableInput: {
          schema: { fields: Array<{ id: number; name: string }> };
          partitionSpec: { fields: Array<{ sourceId: number; transform: string }> };
          properties: Record<string, string>;
        };
      };
    };
    const iceberg = input.icebergInput.icebergTableInput;
    const nameOf = (id: number) => iceberg.schema.fields.find((f) => f.id === id)!.name;
    tables.set(lake.resolve(table.name) as string, {
      partitions: iceberg.partitionSpec.fields.map((f) => ({ source: nameOf(f.sourceId), transform: f.transform })),
      format: iceberg.properties['write.format.default']!,
      codec: iceberg.properties['write.parquet.compression-codec']!,
    });
  }
  const configuration = lake.resolve((lake.workgroup as CfnWorkGroup).workGroupConfiguration) as { bytesScannedCutoffPerQuery: number };
  return { tables, scanLimitBytes: configuration.bytesScannedCutoffPerQuery };
}
