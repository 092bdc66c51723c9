import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  API_BASE_PATH,
  catalog as defaultCatalog,
  httpHandlerModule,
  jobModule,
  needsSigningKey,
  queueUrlEnv,
  workerModule,
  type Catalog,
} from '../../shared/catalog.ts';
import { constructId } from './names.ts';
import { LOG_RETENTION, ServiceFunction } from './service-function.ts';
import { deploymentSettings, type DeploymentSettings } from './settings.ts';
import { grantTableData, type StatefulResources } from './stateful-stack.ts';

export interface StatelessStackProps extends StackProps {
  readonly stateful: StatefulResources;
  /** @default the service's catalog */
  readonly catalog?: Catalog;
}

const JWT_AUDIENCE = 'aos-api';
const HTTP_FUNCTION_TIMEOUT = Duration.seconds(10);
/** Account protection only; per-credential limits are the application's (429 RATE_LIMITED). */
const STAGE_THROTTLE = { rateLimit: 1000, burstLimit: 2000 };
/** AWS advises a queue's visibility timeout of at least six times its consumer's timeout. */
const VISIBILITY_TIMEOUT_PER_CONSUMER_TIMEOUT = 6;
/** The consumer that delivers e-mail (SES) and SMS (SNS). */
const MESSAGE_DELIVERY_CONSUMER = 'notify';
/** The consumer that judges traces with a Bedrock model. */
const JUDGE_CONSUMER = 'evaluate';
/** The functions that write profile narratives (learningDeps): regenerating a profile and the learning job. */
const NARRATING_FUNCTION = /^profiles\/regenerate$|^profile-learning$/;
/** The consumer that writes per-trace measures to the optional Timestream sink. */
const METRICS_CONSUMER = 'ingest';
/** Cross-Region inference profile ids put a geography before the model id, e.g. `us.amazon.nova-micro-v1:0`. */
const INFERENCE_PROFILE_ID = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

interface FunctionSpec {
  readonly module: string;
  readonly timeout: Duration;
  readonly memoryMb?: number;
  readonly signingKey?: boolean;
  readonly sendsTo?: readonly string[];
  /** A consumer that sends to its own queue (the ingest worker's purge pages) must not be stopped as a loop. */
  readonly feedsItself?: boolean;
}

/** The code: one function per catalog route, queue consumer and schedule, and the HTTP API in front. */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly apiUrl: string;
  /** By route id, the fallback route's included. */
  readonly routeFunctions = new Map<string, ServiceFunction>();
  /** By queue id. */
  readonly consumerFunctions = new Map<string, ServiceFunction>();
  /** By schedule id. */
  readonly jobFunctions = new Map<string, ServiceFunction>();

  private readonly stateful: StatefulResources;
  private readonly functionEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const catalog = props.catalog ?? defaultCatalog;
    const settings = deploymentSettings(this);
    this.stateful = props.stateful;

    this.api = this.httpApi(catalog, settings);
    this.apiUrl = `${this.api.apiEndpoint}${API_BASE_PATH}`;
    this.functionEnvironment = {
      TABLE_NAME: this.stateful.table.tableName,
      JWT_ISSUER: settings.jwtIssuer,
      JWT_AUDIENCE,
      JWT_EXTERNAL_ISSUERS: settings.jwtExternalIssuers,
      // The functions may name the API they sit behind: the API resource does not depend on them.
      PUBLIC_APP_URL: settings.publicAppUrl ?? this.api.apiEndpoint,
      ...(settings.mailFrom !== undefined && { MAIL_FROM: settings.mailFrom }),
      MAIL_TRANSPORT: 'ses',
      SMS_TRANSPORT: 'sns',
      LOG_LEVEL: settings.logLevel,
    };

    this.addRoutes(catalog);
    this.addConsumers(catalog.queues, settings);
    this.addSchedules(catalog.schedules);
    if (settings.profileNarratorModelId) {
      const narrators = [...this.routeFunctions, ...this.jobFunctions].filter(([id]) => NARRATING_FUNCTION.test(id)).map(([, fn]) => fn);
      this.useProfileNarrator(narrators, settings.profileNarratorModelId);
    }

    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl });
  }

  /** The API and its `$default` stage, without routes. */
  private httpApi(catalog: Catalog, settings: DeploymentSettings): HttpApi {
    const api = new HttpApi(this, 'Api', {
      apiName: this.stackName,
      description: 'Agent Observability Service',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: settings.corsAllowOrigins,
        allowMethods: [...new Set(catalog.routes.map((route) => CorsHttpMethod[route.method]))],
        allowHeaders: ['authorization', 'content-type', 'content-encoding', 'x-api-key'],
        exposeHeaders: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-request-id'],
        maxAge: Duration.hours(1),
      },
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Every route authenticates in its handler, by the catalog route's auth mode: a bearer JWT (own issuer or Cognito) or an x-api-key, which no API Gateway authorizer type covers both of; public routes are public by design.",
    });

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: LOG_RETENTION });
    new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      autoDeploy: true,
      throttle: STAGE_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });
    return api;
  }

  /** `METHOD /api<path>` per catalog route, and `$default` for everything else. */
  private addRoutes(catalog: Catalog): void {
    for (const route of catalog.routes) {
      const fn = this.serviceFunction(route.id, {
        module: httpHandlerModule(route.id),
        timeout: HTTP_FUNCTION_TIMEOUT,
        memoryMb: route.memoryMb,
        signingKey: needsSigningKey(route),
        sendsTo: route.sendsTo,
      });
      this.routeFunctions.set(route.id, fn);
      this.api.addRoutes({
        path: `${API_BASE_PATH}${route.path}`,
        methods: [HttpMethod[route.method]],
        integration: this.integration(route.id, fn),
      });
    }

    const { fallbackRoute } = catalog;
    // The fallback answers 404 to anyone: public, and it signs nothing.
    const fallback = this.serviceFunction(fallbackRoute.id, {
      module: httpHandlerModule(fallbackRoute.id),
      timeout: HTTP_FUNCTION_TIMEOUT,
    });
    this.routeFunctions.set(fallbackRoute.id, fallback);
    new HttpRoute(this.api, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: this.integration(fallbackRoute.id, fallback),
    });
  }

  private addConsumers(queues: Catalog['queues'], settings: DeploymentSettings): void {
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
      if (queue.consumer === JUDGE_CONSUMER) this.useBedrockJudge(fn, settings.bedrockModelId);
      if (queue.consumer === METRICS_CONSUMER && settings.timestream) this.useTimestream(fn, settings.timestream);
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

  /** A function that reads and writes the table, plus exactly the secret and queues its spec names. */
  private serviceFunction(name: string, spec: FunctionSpec): ServiceFunction {
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
    if (spec.signingKey) signingSeed.grantRead(fn);
    for (const { queue } of sendsTo) queue.grantSendMessages(fn);
    return fn;
  }

  private integration(routeId: string, fn: ServiceFunction): HttpLambdaIntegration {
    return new HttpLambdaIntegration(`${constructId(routeId)}Integration`, fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
  }

  private queue(queueId: string): IQueue {
    const queue = this.stateful.queues.get(queueId);
    if (!queue) throw new Error(`queue ${queueId} is in the catalog but not in the stateful stack`);
    return queue;
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

  /**
   * The judge on Bedrock: Converse needs bedrock:InvokeModel, granted on the configured model only. An
   * inference profile sends each call to the model in one of its geography's Regions, so it needs the
   * profile and that model in any Region.
   */
  private useBedrockJudge(fn: ServiceFunction, modelId: string): void {
    fn.addEnvironment('JUDGE', 'bedrock');
    fn.addEnvironment('BEDROCK_MODEL_ID', modelId);
    this.allowBedrockModel('JudgeModelPolicy', [fn], modelId);
  }

  /** Profiles' narratives on Bedrock, when the operator names a model; else they come from a template. */
  private useProfileNarrator(fns: ServiceFunction[], modelId: string): void {
    for (const fn of fns) fn.addEnvironment('PROFILE_NARRATOR_MODEL_ID', modelId);
    this.allowBedrockModel('NarratorModelPolicy', fns, modelId);
  }

  private allowBedrockModel(policyId: string, fns: ServiceFunction[], modelId: string): void {
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
