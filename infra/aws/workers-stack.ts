import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { jobModule, workerModule, type Catalog } from '../../shared/catalog.ts';
import { CodeStack, type CodeStackProps } from './code-stack.ts';
import { constructId } from './names.ts';
import type { ServiceFunction } from './service-function.ts';

export interface WorkersStackProps extends CodeStackProps {
  readonly queues: Catalog['queues'];
  readonly schedules: Catalog['schedules'];
}

/** AWS advises a queue's visibility timeout of at least six times its consumer's timeout. */
const VISIBILITY_TIMEOUT_PER_CONSUMER_TIMEOUT = 6;
/** The consumer that delivers e-mail (SES) and SMS (SNS). */
const MESSAGE_DELIVERY_CONSUMER = 'notify';
/** The consumer that judges traces with a Bedrock model. */
const JUDGE_CONSUMER = 'evaluate';
/** The consumer that writes per-trace measures to the optional Timestream sink. */
const METRICS_CONSUMER = 'ingest';

/** The work behind the API: one function per queue consumer and per schedule. */
export class WorkersStack extends CodeStack {
  /** By queue id. */
  readonly consumerFunctions = new Map<string, ServiceFunction>();
  /** By schedule id. */
  readonly jobFunctions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    this.addConsumers(props.queues);
    this.addSchedules(props.schedules);
    this.narrateProfiles(this.jobFunctions);
  }

  private addConsumers(queues: Catalog['queues']): void {
    for (const queue of queues) {
      const fn = this.serviceFunction(`${queue.consumer}-worker`, {
        module: workerModule(queue.consumer),
        timeout: Duration.seconds(Math.floor(queue.visibilityTimeoutSeconds / VISIBILITY_TIMEOUT_PER_CONSUMER_TIMEOUT)),
        memoryMb: queue.memoryMb,
        sendsTo: queue.sendsTo,
        feedsItself: queue.sendsTo?.includes(queue.id),
      });
      fn.addEventSource(
        new SqsEventSource(this.queue(queue.id), { batchSize: queue.batchSize, reportBatchItemFailures: true }),
      );
      if (queue.consumer === MESSAGE_DELIVERY_CONSUMER) this.allowMessageDelivery(fn);
      if (queue.consumer === JUDGE_CONSUMER) this.useBedrockJudge(fn, this.settings.bedrockModelId);
      if (queue.consumer === METRICS_CONSUMER && this.settings.timestream) this.useTimestream(fn, this.settings.timestream);
      this.consumerFunctions.set(queue.id, fn);
    }
  }

  private addSchedules(schedules: Catalog['schedules']): void {
    for (const schedule of schedules) {
      const fn = this.serviceFunction(`${schedule.id}-job`, {
        module: jobModule(schedule.job),
        // A run ends before the next one starts (and within Lambda's 15 minutes).
        timeout: Duration.minutes(Math.min(schedule.everyMinutes, 15)),
      });
      new events.Rule(this, `${constructId(schedule.id)}Schedule`, {
        schedule: events.Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        targets: [new targets.LambdaFunction(fn)],
      });
      this.jobFunctions.set(schedule.id, fn);
    }
  }

  /** SES e-mail from this account's verified identities; SNS SMS, which is published to a phone number, not a topic. */
  private allowMessageDelivery(fn: ServiceFunction): void {
    const policy = new iam.Policy(this, 'MessageDeliveryPolicy', {
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

  /** The judge on Bedrock, on the configured model only. */
  private useBedrockJudge(fn: ServiceFunction, modelId: string): void {
    fn.addEnvironment('JUDGE', 'bedrock');
    fn.addEnvironment('BEDROCK_MODEL_ID', modelId);
    this.allowBedrockModel('JudgeModelPolicy', [fn], modelId);
  }

  /** The optional Timestream sink: WriteRecords on the one table; endpoint discovery has no resource. */
  private useTimestream(fn: ServiceFunction, { database, table }: { database: string; table: string }): void {
    fn.addEnvironment('TIMESTREAM_DATABASE', database);
    fn.addEnvironment('TIMESTREAM_TABLE', table);
    const policy = new iam.Policy(this, 'TimestreamPolicy', {
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
}
