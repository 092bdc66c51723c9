import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CorsHttpMethod, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { API_BASE_PATH, type Catalog } from '#shared/catalog.ts';
import { LOG_RETENTION } from './service-function.ts';
import { type DeploymentSettings, deploymentSettings } from './settings.ts';

/** What the code stacks build on besides the stateful resources: the API their routes join, and the settings. */
export interface ApiResources {
  readonly api: HttpApi;
  /** Read once, here: every function gets the same issuer and settings, whichever stack it is in. */
  readonly settings: DeploymentSettings;
}

export interface ApiStackProps extends StackProps {
  readonly catalog: Catalog;
}

/** Account protection only; per-credential limits are the application's (429 RATE_LIMITED). */
const STAGE_THROTTLE = { rateLimit: 1000, burstLimit: 2000 };

/**
 * The HTTP API, its `$default` stage and access logs, and nothing that changes with the code: the route
 * stacks attach the routes, each beside its function, and refer to this stack, never the other way round.
 */
export class ApiStack extends Stack implements ApiResources {
  readonly api: HttpApi;
  readonly apiUrl: string;
  readonly settings: DeploymentSettings;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.settings = deploymentSettings(this);

    this.api = new HttpApi(this, 'Api', {
      apiName: this.stackName,
      description: 'Agent Observability Service',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: this.settings.corsAllowOrigins,
        allowMethods: [...new Set(props.catalog.routes.map((route) => CorsHttpMethod[route.method]))],
        allowHeaders: ['authorization', 'content-type', 'content-encoding', 'x-api-key'],
        exposeHeaders: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-request-id'],
        maxAge: Duration.hours(1),
      },
    });
    this.apiUrl = `${this.api.apiEndpoint}${API_BASE_PATH}`;

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: LOG_RETENTION });
    // Auto-deploy also publishes the routes the route stacks add: any change to the API starts a deployment.
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
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

    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl });
  }
}
