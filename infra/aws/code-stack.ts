import { Stack, Validations, type Duration, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { queueUrlEnv } from '../../shared/catalog.ts';
import type { ApiResources } from './api-stack.ts';
import type { LakeResources } from './lake-stack.ts';
import { constructId } from './names.ts';
import { ServiceFunction } from './service-function.ts';
import type { DeploymentSettings } from './settings.ts';
import { grantTableData, type StatefulResources } from './stateful-stack.ts';

export interface CodeStackProps extends StackProps {
  readonly stateful: StatefulResources;
  readonly api: ApiResources;
  /** The trace lake, which the functions that search, export or write it are connected to. */
  readonly lake?: LakeResources;
}

export interface FunctionSpec {
  readonly module: string;
  readonly timeout: Duration;
  readonly memoryMb?: number;
  readonly signingKey?: boolean;
  readonly sendsTo?: readonly string[];
  /** A consumer that sends to its own queue (the ingest worker's purge pages) must not be stopped as a loop. */
  readonly feedsItself?: boolean;
}

const JWT_AUDIENCE = 'aos-api';
/** The functions that write profile narratives (learningDeps), by catalog id: regenerating a profile and the learning job. */
const NARRATING_FUNCTION = /^profiles\/regenerate$|^profile-learning$/;
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
  protected readonly lake: LakeResources | undefined;
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
    };
  }

  /** A function that reads and writes the table, plus exactly the secret and queues its spec names. */
  protected serviceFunction(name: string, spec: FunctionSpec): ServiceFunction {
    const { table, signingSeed } = this.stateful;
    const sendsTo = (spec.sendsTo ?? []).map((queueId) => ({ queueId, queue: this.queue(queueId) }));
    const fn = new ServiceFunction(this, constructId(name), {
      module: spec.module,
      timeout: spec.timeout,
      memoryMb: spec.memoryMb,
      ...(spec.feedsItself && { recursiveLoop: RecursiveLoop.ALLOW }),
      environment: {
        ...this.functionEnvironment,
        ...(spec.signingKey && { SIGNING_SEED_SECRET_ARN: signingSeed.secretArn }),
        ...Object.fromEntries(sendsTo.map(({ queueId, queue }) => [queueUrlEnv(queueId), queue.queueUrl])),
      },
    });
    grantTableData(table, fn);
    this.lake?.connect(name, fn);
    if (spec.signingKey) signingSeed.grantRead(fn);
    for (const { queue } of sendsTo) queue.grantSendMessages(fn);
    return fn;
  }

  protected queue(queueId: string): IQueue {
    const queue = this.stateful.queues.get(queueId);
    if (!queue) throw new Error(`queue ${queueId} is in the catalog but not in the stateful stack`);
    return queue;
  }

  /** Profiles' narratives on Bedrock, when the operator names a model, for those of the functions (by catalog id) that write them. */
  protected narrateProfiles(functions: ReadonlyMap<string, ServiceFunction>): void {
    const modelId = this.settings.profileNarratorModelId;
    const narrators = [...functions].filter(([id]) => NARRATING_FUNCTION.test(id)).map(([, fn]) => fn);
    if (!modelId || narrators.length === 0) return;
    for (const fn of narrators) fn.addEnvironment('PROFILE_NARRATOR_MODEL_ID', modelId);
    this.allowBedrockModel('NarratorModelPolicy', narrators, modelId);
  }

  /** Questions to the search turned into queries by a Bedrock model, for those of the functions (by catalog id) that take them. */
  protected askBedrock(functions: ReadonlyMap<string, ServiceFunction>): void {
    if (!this.lake) return;
    const askers = [...functions].filter(([id]) => this.lake!.uses(id).includes('ask')).map(([, fn]) => fn);
    if (askers.length === 0) return;
    for (const fn of askers) {
      fn.addEnvironment('ASK_TRANSLATOR', 'bedrock');
      fn.addEnvironment('ASK_MODEL_ID', this.lake.askModelId);
    }
    this.allowBedrockModel('AskModelPolicy', askers, this.lake.askModelId);
  }

  /**
   * Converse needs bedrock:InvokeModel, granted on the configured model only. An inference profile sends
   * each call to the model in one of its geography's Regions, so it needs the profile and that model in any Region.
   */
  protected allowBedrockModel(policyId: string, fns: ServiceFunction[], modelId: string): void {
    const foundationModel = (region: string, id: string) => this.formatArn({ service: 'bedrock', region, account: '', resource: 'foundation-model', resourceName: id });
    const profile = INFERENCE_PROFILE_ID.exec(modelId);
    const resources = profile
      ? [this.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }), foundationModel('*', profile[1]!)]
      : [foundationModel(this.region, modelId)];
    const policy = new iam.Policy(this, policyId, {
      roles: fns.map((f) => f.role),
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
