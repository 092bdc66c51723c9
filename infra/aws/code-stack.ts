import { type Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type Capability, queueUrlEnv } from '#shared/catalog.ts';
import type { ApiResources } from './api-stack.ts';
import type { LakeResources } from './lake-stack.ts';
import { constructId } from './names.ts';
import { ServiceFunction } from './service-function.ts';
import type { DeploymentSettings } from './settings.ts';
import { grantTableData, type StatefulResources } from './stateful-stack.ts';

export interface CodeStackProps extends StackProps {
  readonly stateful: StatefulResources;
  readonly api: ApiResources;
  /** The trace lake, which the functions whose catalog rows name a lake capability reach. */
  readonly lake: LakeResources;
}

export interface FunctionSpec {
  readonly module: string;
  readonly timeout: Duration;
  readonly memoryMb?: number;
  readonly signingKey?: boolean;
  /** An HTTP route: it tells a console user's address by the secret of the console's distribution (`shared/http/client-address.ts`). */
  readonly originSecret?: boolean;
  readonly sendsTo?: readonly string[];
  /** A consumer that sends to its own queue (the ingest worker's purge pages) must not be stopped as a loop. */
  readonly feedsItself?: boolean;
  readonly uses?: readonly Capability[];
  readonly reservedConcurrency?: number;
}

const JWT_AUDIENCE = 'aos-api';
/** Cross-Region inference profile ids put a geography before the model id, e.g. `us.amazon.nova-micro-v1:0`. */
const INFERENCE_PROFILE_ID = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

/**
 * A stack of the service's functions (the route stacks, the workers stack): each function gets the shared
 * environment, the table, and exactly the secret and queues its spec names. The grants are written in the
 * function's own stack, so a code stack refers to the stateful and API stacks and nothing refers to it.
 */
export abstract class CodeStack extends Stack {
  protected readonly stateful: StatefulResources;
  protected readonly settings: DeploymentSettings;
  protected readonly lake: LakeResources;
  private readonly functionEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: CodeStackProps) {
    super(scope, id, props);
    this.stateful = props.stateful;
    this.settings = props.api.settings;
    this.lake = props.lake;
    this.functionEnvironment = {
      TABLE_NAME: this.stateful.table.tableName,
      JWT_ISSUER: this.settings.jwtIssuer,
      JWT_AUDIENCE,
      JWT_EXTERNAL_ISSUERS: this.settings.jwtExternalIssuers,
      // The functions may name the API they sit behind: the API resource does not depend on them.
      PUBLIC_APP_URL: this.settings.publicAppUrl ?? props.api.api.apiEndpoint,
      ...(this.settings.mailFrom !== undefined && { MAIL_FROM: this.settings.mailFrom }),
      MAIL_TRANSPORT: 'ses',
      SMS_TRANSPORT: 'sns',
      LOG_LEVEL: this.settings.logLevel,
      SIGN_UP_PLAN: this.settings.signUpPlan,
    };
  }

  /** A function that reads and writes the table, plus exactly the secret and queues its spec names. */
  protected serviceFunction(name: string, spec: FunctionSpec): ServiceFunction {
    const { table, signingSeed, originSecret } = this.stateful;
    const sendsTo = (spec.sendsTo ?? []).map((queueId) => ({ queueId, queue: this.queue(queueId) }));
    const fn = new ServiceFunction(this, constructId(name), {
      module: spec.module,
      timeout: spec.timeout,
      memoryMb: spec.memoryMb,
      ...(spec.feedsItself && { recursiveLoop: RecursiveLoop.ALLOW }),
      ...(spec.reservedConcurrency !== undefined && { reservedConcurrency: spec.reservedConcurrency }),
      environment: {
        ...this.functionEnvironment,
        ...(spec.signingKey && { SIGNING_SEED_SECRET_ARN: signingSeed.secretArn }),
        ...(spec.originSecret && { ORIGIN_SECRET_ARN: originSecret.secretArn }),
        ...Object.fromEntries(sendsTo.map(({ queueId, queue }) => [queueUrlEnv(queueId), queue.queueUrl])),
      },
    });
    grantTableData(table, fn);
    if (spec.signingKey) signingSeed.grantRead(fn);
    if (spec.originSecret) originSecret.grantRead(fn);
    for (const { queue } of sendsTo) queue.grantSendMessages(fn);
    for (const capability of spec.uses ?? []) this.grantCapability(fn, constructId(name), capability);
    return fn;
  }

  private grantCapability(fn: ServiceFunction, name: string, capability: Capability): void {
    switch (capability) {
      case 'messageDelivery':
        return this.allowMessageDelivery(fn, name);
      case 'judge':
        fn.addEnvironment('JUDGE', 'bedrock');
        fn.addEnvironment('BEDROCK_MODEL_ID', this.settings.bedrockModelId);
        return this.allowBedrockModel(`${name}JudgeModelPolicy`, fn, this.settings.bedrockModelId);
      case 'narrator': {
        // Without a model, profiles' narratives come from a template and the function reaches nothing.
        const modelId = this.settings.profileNarratorModelId;
        if (!modelId) return;
        fn.addEnvironment('PROFILE_NARRATOR_MODEL_ID', modelId);
        return this.allowBedrockModel(`${name}NarratorModelPolicy`, fn, modelId);
      }
      case 'metricsSink':
        if (this.settings.timestream) this.useTimestream(fn, name, this.settings.timestream);
        return;
      case 'askModel':
        fn.addEnvironment('ASK_TRANSLATOR', 'bedrock');
        fn.addEnvironment('ASK_MODEL_ID', this.settings.askModelId);
        return this.allowBedrockModel(`${name}AskModelPolicy`, fn, this.settings.askModelId);
      case 'lakeWrite':
      case 'lakeRead':
      case 'lakeDelete':
      case 'lakeExport':
      case 'exportLinks':
        return this.lake.grant(fn, capability);
    }
  }

  protected queue(queueId: string): IQueue {
    const queue = this.stateful.queues.get(queueId);
    if (!queue) throw new Error(`queue ${queueId} is in the catalog but not in the stateful stack`);
    return queue;
  }

  /** SES e-mail from this account's verified identities; SNS SMS, which is published to a phone number, not a topic. */
  private allowMessageDelivery(fn: ServiceFunction, name: string): void {
    const policy = new iam.Policy(this, `${name}MessageDeliveryPolicy`, {
      roles: [fn.role],
      statements: [
        new iam.PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [this.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        }),
        new iam.PolicyStatement({ actions: ['sns:Publish'], resources: ['*'] }),
      ],
    });
    Validations.of(policy).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        reason: 'The sender is a deployment setting (mailFrom); SES authorizes sending per verified identity of this account and Region.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'SMS is published straight to a phone number, which has no ARN; sns:Publish then requires resource "*".',
      },
    );
  }

  /** The optional Timestream sink: WriteRecords on the one table; endpoint discovery has no resource. */
  private useTimestream(fn: ServiceFunction, name: string, { database, table }: { database: string; table: string }): void {
    fn.addEnvironment('TIMESTREAM_DATABASE', database);
    fn.addEnvironment('TIMESTREAM_TABLE', table);
    const policy = new iam.Policy(this, `${name}TimestreamPolicy`, {
      roles: [fn.role],
      statements: [
        new iam.PolicyStatement({
          actions: ['timestream:WriteRecords'],
          resources: [this.formatArn({ service: 'timestream', resource: 'database', resourceName: `${database}/table/${table}` })],
        }),
        new iam.PolicyStatement({ actions: ['timestream:DescribeEndpoints'], resources: ['*'] }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'timestream:DescribeEndpoints (endpoint discovery, required before WriteRecords) supports no resource-level permissions.',
    });
  }

  /**
   * Converse needs bedrock:InvokeModel, granted on the configured model only. An inference profile sends
   * each call to the model in one of its geography's Regions, so it needs the profile and that model in any Region.
   */
  private allowBedrockModel(policyId: string, fn: ServiceFunction, modelId: string): void {
    const foundationModel = (region: string, id: string) =>
      this.formatArn({ service: 'bedrock', region, account: '', resource: 'foundation-model', resourceName: id });
    const profile = INFERENCE_PROFILE_ID.exec(modelId);
    const resources = profile
      ? [this.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }), foundationModel('*', profile[1]!)]
      : [foundationModel(this.region, modelId)];
    const policy = new iam.Policy(this, policyId, {
      roles: [fn.role],
      statements: [new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources })],
    });
    if (profile) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${profile[1]}]`,
        reason: "A cross-Region inference profile runs the call on its one model in any Region of the profile's geography; the grant names that model only.",
      });
    }
  }
}
