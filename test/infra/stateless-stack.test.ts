import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../infra/aws/service-function.ts';
import { API_BASE_PATH, catalog, needsSigningKey, queueUrlEnv } from '../../shared/catalog.ts';
import {
  actionsOf,
  buildTestApp,
  catalogWithSchedule,
  grantsAction,
  logicalIdOf,
  statementsOf,
  type Statement,
} from './service-app.ts';

const { stateful, stateless } = buildTestApp();
const template = Template.fromStack(stateless);

interface Resource {
  Properties: Record<string, unknown>;
}
const resources = (type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;
const functionOf = (routeId: string): ServiceFunction => stateless.routeFunctions.get(routeId)!;
const environmentOf = (fn: ServiceFunction): Record<string, unknown> => {
  const properties = resources('AWS::Lambda::Function')[logicalIdOf(stateless, fn)]!.Properties;
  return (properties.Environment as { Variables: Record<string, unknown> }).Variables;
};
const mentions = (statement: Statement, logicalId: string): boolean => JSON.stringify(statement.Resource).includes(logicalId);

describe('stateless stack', () => {
  it('has exactly one function per catalog route, the fallback route, queue consumer and schedule', () => {
    const expected = catalog.routes.length + 1 + catalog.queues.length + catalog.schedules.length;
    expect(Object.keys(resources('AWS::Lambda::Function'))).toHaveLength(expected);
  });

  it('runs every function on the chosen runtime, arm64, traced, logging to its own group', () => {
    for (const fn of Object.values(resources('AWS::Lambda::Function'))) {
      expect(fn.Properties).toMatchObject({
        Runtime: ServiceFunction.RUNTIME.name,
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
      });
    }
  });

  it('lets only the ingest worker, which queues its own purge pages, run on through a loop of its own queue', () => {
    const allowed = Object.entries(resources('AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.RecursiveLoop === 'Allow').map(([id]) => id);
    expect(allowed).toEqual([logicalIdOf(stateless, stateless.consumerFunctions.get('ingest')!)]);
  });

  it('routes exactly the catalog (both ways) plus $default', () => {
    const routeKeys = Object.values(resources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties.RouteKey);
    const expected = [...catalog.routes.map((route) => `${route.method} ${API_BASE_PATH}${route.path}`), '$default'];
    expect(routeKeys.sort()).toEqual(expected.sort());
  });

  it("sends each route to its own handler's function", () => {
    const routes = Object.values(resources('AWS::ApiGatewayV2::Route'));
    const integrations = resources('AWS::ApiGatewayV2::Integration');
    const routeTargets = [
      ...catalog.routes.map((route) => [`${route.method} ${API_BASE_PATH}${route.path}`, route.id] as const),
      ['$default', catalog.fallbackRoute.id] as const,
    ];
    for (const [routeKey, routeId] of routeTargets) {
      const route = routes.find((r) => r.Properties.RouteKey === routeKey)!;
      const integrationId = JSON.stringify(route.Properties.Target).match(/"Ref":"(\w+)"/)![1]!;
      expect(integrations[integrationId]!.Properties, routeKey).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [logicalIdOf(stateless, functionOf(routeId)), 'Arn'] },
      });
    }
  });

  it('logs every request of the default stage as JSON and throttles it', () => {
    const stages = Object.values(resources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const stage = stages[0]!.Properties as {
      StageName: string;
      AccessLogSettings: { DestinationArn: unknown; Format: string };
      DefaultRouteSettings: { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };
    };
    expect(stage.StageName).toBe('$default');
    expect(stage.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    expect(Object.keys(JSON.parse(stage.AccessLogSettings.Format))).toEqual(
      expect.arrayContaining(['requestId', 'ip', 'routeKey', 'status', 'latency']),
    );
    expect(stage.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(stage.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThan(0);
  });

  it('allows the CORS headers clients send', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['authorization', 'content-type', 'content-encoding', 'x-api-key'],
        AllowMethods: [...new Set(catalog.routes.map((route) => route.method))],
      },
    });
  });

  it.each(catalog.queues)('feeds queue $id to its consumer in batches, reporting item failures', (queue) => {
    const consumer = stateless.consumerFunctions.get(queue.id)!;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(stateless, consumer) },
      BatchSize: queue.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const timeout = resources('AWS::Lambda::Function')[logicalIdOf(stateless, consumer)]!.Properties.Timeout as number;
    expect(timeout * 6).toBeLessThanOrEqual(queue.visibilityTimeoutSeconds);
  });

  it('outputs the API URL under the base path', () => {
    const output = template.toJSON().Outputs.ApiUrl.Value as { 'Fn::Join': [string, unknown[]] };
    expect(output['Fn::Join'][1].at(-1)).toBe(API_BASE_PATH);
  });

  describe('grants', () => {
    it.each(catalog.routes)('give route $id the signing secret only if it needs it', (route) => {
      const fn = functionOf(route.id);
      expect(grantsAction(statementsOf(template, stateless, fn), 'secretsmanager:GetSecretValue')).toBe(needsSigningKey(route));
      expect('SIGNING_SEED_SECRET_ARN' in environmentOf(fn)).toBe(needsSigningKey(route));
    });

    it('keep the signing secret from public routes such as health and the fallback', () => {
      for (const routeId of ['system/health', catalog.fallbackRoute.id]) {
        const statements = statementsOf(template, stateless, functionOf(routeId));
        expect(statements.flatMap(actionsOf).filter((action) => action.startsWith('secretsmanager:'))).toEqual([]);
      }
    });

    it.each(catalog.routes)('let route $id send to exactly the queues it names', (route) => {
      const fn = functionOf(route.id);
      const sendStatements = statementsOf(template, stateless, fn).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
      const sendsTo: readonly string[] = route.sendsTo ?? [];
      for (const queue of catalog.queues) {
        const queueLogicalId = logicalIdOf(stateful, stateful.queues.get(queue.id)!);
        expect(sendStatements.some((s) => mentions(s, queueLogicalId))).toBe(sendsTo.includes(queue.id));
        expect(queueUrlEnv(queue.id) in environmentOf(fn)).toBe(sendsTo.includes(queue.id));
      }
    });

    it("let auth/register send to the notify queue and keys/list to none", () => {
      expect(grantsAction(statementsOf(template, stateless, functionOf('auth/register')), 'sqs:SendMessage')).toBe(true);
      expect(grantsAction(statementsOf(template, stateless, functionOf('keys/list')), 'sqs:SendMessage')).toBe(false);
    });

    it('give every function item access to the table and its named indexes, no wildcard', () => {
      const tableLogicalId = logicalIdOf(stateful, stateful.table);
      for (const fn of [...stateless.routeFunctions.values(), ...stateless.consumerFunctions.values()]) {
        const tableStatements = statementsOf(template, stateless, fn).filter((s) => mentions(s, tableLogicalId));
        expect(tableStatements.flatMap(actionsOf)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']));
        expect(JSON.stringify(tableStatements.map((s) => s.Resource))).not.toContain('*');
      }
    });

    it.each(catalog.queues)('let the $consumer consumer receive from its own queue', (queue) => {
      const statements = statementsOf(template, stateless, stateless.consumerFunctions.get(queue.id)!);
      const queueLogicalId = logicalIdOf(stateful, stateful.queues.get(queue.id)!);
      expect(statements.some((s) => actionsOf(s).includes('sqs:ReceiveMessage') && mentions(s, queueLogicalId))).toBe(true);
    });

    it('let only the notify consumer send e-mail and SMS', () => {
      const notify = stateless.consumerFunctions.get('notify')!;
      for (const fn of [...stateless.routeFunctions.values(), ...stateless.consumerFunctions.values()]) {
        const statements = statementsOf(template, stateless, fn);
        expect(grantsAction(statements, 'ses:SendEmail')).toBe(fn === notify);
        expect(grantsAction(statements, 'sns:Publish')).toBe(fn === notify);
      }
    });
  });
});

describe('stateless stack with a schedule and deployment settings', () => {
  const configured = buildTestApp({
    catalog: catalogWithSchedule,
    context: {
      publicAppUrl: 'https://app.example.com',
      jwtIssuer: 'https://auth.example.com',
      jwtExternalIssuers: '[{"issuer":"https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf","audiences":["client"]}]',
      corsAllowOrigins: 'https://app.example.com, https://admin.example.com',
      mailFrom: 'alerts@example.com',
      logLevel: 'warn',
    },
  }).stateless;
  const configuredTemplate = Template.fromStack(configured);
  const [schedule] = catalogWithSchedule.schedules;

  it('runs the schedule’s job on its rate', () => {
    const job = configured.jobFunctions.get(schedule!.id)!;
    configuredTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${schedule!.everyMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(configured, job), 'Arn'] } })],
    });
    configuredTemplate.resourceCountIs(
      'AWS::Lambda::Function',
      catalog.routes.length + 1 + catalog.queues.length + catalogWithSchedule.schedules.length,
    );
  });

  it('passes the settings to the functions and the CORS configuration', () => {
    const register = configured.routeFunctions.get('auth/register')!;
    const variables = (
      configuredTemplate.findResources('AWS::Lambda::Function')[logicalIdOf(configured, register)]!.Properties as {
        Environment: { Variables: Record<string, unknown> };
      }
    ).Environment.Variables;
    expect(variables).toMatchObject({
      PUBLIC_APP_URL: 'https://app.example.com',
      JWT_ISSUER: 'https://auth.example.com',
      JWT_AUDIENCE: 'aos-api',
      MAIL_FROM: 'alerts@example.com',
      MAIL_TRANSPORT: 'ses',
      SMS_TRANSPORT: 'sns',
      LOG_LEVEL: 'WARN',
    });
    expect(JSON.parse(variables.JWT_EXTERNAL_ISSUERS as string)).toEqual([
      { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf', audiences: ['client'] },
    ]);
    configuredTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: { AllowOrigins: ['https://app.example.com', 'https://admin.example.com'] },
    });
  });

  it('rejects external issuers that are not a JSON array of issuers at synthesis', () => {
    expect(() => buildTestApp({ context: { jwtExternalIssuers: '{"issuer":"https://x"}' } })).toThrow(/jwtExternalIssuers/);
  });

  it('rejects external issuers whose keys would be read over plain http, at synthesis', () => {
    expect(() => buildTestApp({ context: { jwtExternalIssuers: '[{"issuer":"http://idp.example.com","audiences":["client"]}]' } })).toThrow(/https/);
  });

  it('rejects an external issuer that names no audience, at synthesis', () => {
    expect(() => buildTestApp({ context: { jwtExternalIssuers: '[{"issuer":"https://idp.example.com","audiences":[]}]' } })).toThrow(/at least one audience/);
  });

  it('rejects a log level the functions would fail to start with, at synthesis', () => {
    expect(() => buildTestApp({ context: { logLevel: 'verbose' } })).toThrow(/LOG_LEVEL/);
  });
});
