import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { API_BASE_PATH, areaOf, catalog, needsSigningKey, queueUrlEnv } from '#shared/catalog.ts';
import { ServiceFunction } from '../../infra/aws/service-function.ts';
import {
  actionsOf,
  buildTestApp,
  catalogWithSchedule,
  codeStacksOf,
  environmentOf,
  functionResourceOf,
  functionsOf,
  grantsAction,
  logicalIdOf,
  type Statement,
  statementsOf,
  templateOf,
} from './service-app.ts';

const service = buildTestApp();
const { stateful, api, routeStacks, workers, routeFunctions } = service;
const apiTemplate = templateOf(api);

interface Resource {
  Properties: Record<string, unknown>;
}
/** The resources of a type across the stacks that hold functions, each with its stack. */
const codeResources = (type: string): { stack: Stack; logicalId: string; resource: Resource }[] =>
  codeStacksOf(service).flatMap((stack) =>
    Object.entries(templateOf(stack).findResources(type) as Record<string, Resource>).map(([logicalId, resource]) => ({ stack, logicalId, resource })),
  );
const functionOf = (routeId: string): ServiceFunction => routeFunctions.get(routeId)!;
const mentions = (statement: Statement, logicalId: string): boolean => JSON.stringify(statement.Resource).includes(logicalId);
const routeTargets = [
  ...catalog.routes.map((route) => [`${route.method} ${API_BASE_PATH}${route.path}`, route.id] as const),
  ['$default', catalog.fallbackRoute.id] as const,
];

describe('stateless stacks', () => {
  it('have exactly one function per catalog route, the fallback route, queue consumer and schedule', () => {
    const expected = catalog.routes.length + 1 + catalog.queues.length + catalog.schedules.length;
    expect(codeResources('AWS::Lambda::Function')).toHaveLength(expected);
    expect(functionsOf(service)).toHaveLength(expected);
  });

  it('run every function on the chosen runtime, arm64, traced, logging to its own group', () => {
    for (const { resource } of codeResources('AWS::Lambda::Function')) {
      expect(resource.Properties).toMatchObject({
        Runtime: ServiceFunction.RUNTIME.name,
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
      });
    }
  });

  it('let only the ingest worker, which queues its own purge pages, run on through a loop of its own queue', () => {
    const allowed = codeResources('AWS::Lambda::Function').filter(({ resource }) => resource.Properties.RecursiveLoop === 'Allow');
    expect(allowed.map(({ stack, logicalId }) => `${stack.stackName}/${logicalId}`)).toEqual([
      `${workers.stackName}/${logicalIdOf(workers.consumerFunctions.get('ingest')!)}`,
    ]);
  });

  it('route exactly the catalog (both ways) plus $default', () => {
    const routeKeys = codeResources('AWS::ApiGatewayV2::Route').map(({ resource }) => resource.Properties.RouteKey);
    expect(routeKeys.sort()).toEqual(routeTargets.map(([routeKey]) => routeKey).sort());
  });

  it("send each route to its own handler's function, the route and its integration in the function's stack", () => {
    for (const [routeKey, routeId] of routeTargets) {
      const fn = functionOf(routeId);
      const template = templateOf(fn);
      const route = Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>).find(
        (r) => r.Properties.RouteKey === routeKey,
      );
      expect(route, routeKey).toBeDefined();
      const integrationId = JSON.stringify(route!.Properties.Target).match(/"Ref":"(\w+)"/)![1]!;
      expect(template.findResources('AWS::ApiGatewayV2::Integration')[integrationId]!.Properties, routeKey).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] },
      });
    }
  });

  it("let API Gateway invoke each route's function, for that route of the one API only", () => {
    for (const [routeKey, routeId] of routeTargets) {
      const fn = functionOf(routeId);
      const permissions = Object.values(templateOf(fn).findResources('AWS::Lambda::Permission') as Record<string, Resource>).filter(
        (p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] }),
      );
      expect(permissions, routeKey).toHaveLength(1);
      const sourceArn = JSON.stringify(permissions[0]!.Properties.SourceArn);
      expect(sourceArn).toContain(':execute-api:');
      expect(sourceArn).toContain(api.stackName);
      const path = routeKey === '$default' ? '' : routeKey.split(' ')[1]!;
      expect(sourceArn).toContain(`/*/*${path}"`);
    }
  });

  it('keep each area in one route stack, its routes beside their functions', () => {
    for (const stack of routeStacks) expect(Object.keys(templateOf(stack).findResources('AWS::Lambda::Function')).length).toBeGreaterThan(0);
    const stacksOfArea = new Map<string, Set<Stack>>();
    for (const [routeId, fn] of routeFunctions) {
      const stacks = stacksOfArea.get(areaOf(routeId)) ?? new Set();
      stacksOfArea.set(areaOf(routeId), stacks.add(Stack.of(fn)));
    }
    for (const [area, stacks] of stacksOfArea) expect(stacks.size, area).toBe(1);
  });

  it('refer to the stateful and API stacks, and no stack refers to one of them (no cycle, the API deploys first)', () => {
    const dependencies = (stack: Stack) => stack.dependencies.map((dependency) => dependency.stackName).sort();
    expect(dependencies(api)).toEqual([]);
    for (const stack of codeStacksOf(service)) {
      expect(dependencies(stack), stack.stackName).toEqual([api.stackName, stateful.stackName].sort());
    }
  });

  it('hold the API, its stage and access logs in the API stack, and nothing that changes with the code', () => {
    expect(
      Object.values(apiTemplate.toJSON().Resources as Record<string, { Type: string }>)
        .map((r) => r.Type)
        .sort(),
    ).toEqual(['AWS::ApiGatewayV2::Api', 'AWS::ApiGatewayV2::Stage', 'AWS::Logs::LogGroup'].sort());
  });

  it('log every request of the default stage as JSON and throttle it', () => {
    const stages = Object.values(apiTemplate.findResources('AWS::ApiGatewayV2::Stage') as Record<string, Resource>);
    expect(stages).toHaveLength(1);
    const stage = stages[0]!.Properties as {
      StageName: string;
      AutoDeploy: boolean;
      AccessLogSettings: { DestinationArn: unknown; Format: string };
      DefaultRouteSettings: { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };
    };
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    expect(stage.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    expect(Object.keys(JSON.parse(stage.AccessLogSettings.Format))).toEqual(expect.arrayContaining(['requestId', 'ip', 'routeKey', 'status', 'latency']));
    expect(stage.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(stage.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThan(0);
  });

  it('allow the CORS headers clients send', () => {
    apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['authorization', 'content-type', 'content-encoding', 'x-api-key'],
        AllowMethods: [...new Set(catalog.routes.map((route) => route.method))],
      },
    });
  });

  it.each(catalog.queues)('feed queue $id to its consumer in batches, reporting item failures', (queue) => {
    const consumer = workers.consumerFunctions.get(queue.id)!;
    templateOf(workers).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(consumer) },
      BatchSize: queue.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const timeout = functionResourceOf(consumer).Properties.Timeout as number;
    expect(timeout * 6).toBeLessThanOrEqual(queue.visibilityTimeoutSeconds);
  });

  it('output the API URL under the base path', () => {
    const output = apiTemplate.toJSON().Outputs.ApiUrl.Value as { 'Fn::Join': [string, unknown[]] };
    expect(output['Fn::Join'][1].at(-1)).toBe(API_BASE_PATH);
  });

  it('give every function the same JWT issuer, whichever stack it is in', () => {
    const issuers = new Set(functionsOf(service).map((fn) => environmentOf(fn).JWT_ISSUER));
    expect([...issuers]).toEqual([`urn:aos:${api.stackName}`]);
  });

  describe('grants', () => {
    /** The secrets the function may read, by the stateful stack's construct id. */
    const secretsReadBy = (fn: ServiceFunction): string[] => {
      const reads = statementsOf(fn).filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
      return (['SigningSeed', 'OriginSecret'] as const)
        .filter((name) => reads.some((s) => mentions(s, logicalIdOf(name === 'SigningSeed' ? stateful.signingSeed : stateful.originSecret))))
        .sort();
    };

    it.each(catalog.routes)('give route $id the signing secret only if it needs it', (route) => {
      const fn = functionOf(route.id);
      expect(secretsReadBy(fn).includes('SigningSeed')).toBe(needsSigningKey(route));
      expect('SIGNING_SEED_SECRET_ARN' in environmentOf(fn)).toBe(needsSigningKey(route));
    });

    it("keep the signing secret from public routes such as health and the fallback, which read only the console distribution's origin secret", () => {
      for (const routeId of ['system/health', catalog.fallbackRoute.id]) {
        expect(secretsReadBy(functionOf(routeId))).toEqual(['OriginSecret']);
        const secretStatements = statementsOf(functionOf(routeId)).filter((s) => actionsOf(s).some((action) => action.startsWith('secretsmanager:')));
        expect(secretStatements.every((s) => mentions(s, logicalIdOf(stateful.originSecret)))).toBe(true);
      }
    });

    it("give every route, and no worker or job, the console distribution's origin secret, to tell a console user's address by", () => {
      const routes = new Set<ServiceFunction>(routeFunctions.values());
      expect(routes.size).toBe(catalog.routes.length + 1);
      for (const fn of functionsOf(service)) {
        expect(secretsReadBy(fn).includes('OriginSecret'), fn.node.path).toBe(routes.has(fn));
        expect('ORIGIN_SECRET_ARN' in environmentOf(fn), fn.node.path).toBe(routes.has(fn));
      }
    });

    /** The function may send to exactly these queues: granted, and given their URLs. */
    const expectSendsExactly = (fn: ServiceFunction, sendsTo: readonly string[] = []) => {
      const sendStatements = statementsOf(fn).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
      for (const queue of catalog.queues) {
        const queueLogicalId = logicalIdOf(stateful.queues.get(queue.id)!);
        expect(sendStatements.some((s) => mentions(s, queueLogicalId))).toBe(sendsTo.includes(queue.id));
        expect(queueUrlEnv(queue.id) in environmentOf(fn)).toBe(sendsTo.includes(queue.id));
      }
    };

    it.each(catalog.routes)('let route $id send to exactly the queues it names', (route) => expectSendsExactly(functionOf(route.id), route.sendsTo));

    it.each(catalog.schedules)('let the $id job send to exactly the queues it names', (schedule) =>
      expectSendsExactly(workers.jobFunctions.get(schedule.id)!, schedule.sendsTo),
    );

    it.each(catalog.schedules)('run the $id job one invocation at a time', (schedule) => {
      expect(functionResourceOf(workers.jobFunctions.get(schedule.id)!).Properties.ReservedConcurrentExecutions).toBe(1);
    });

    it('run the trace-closing job every five minutes, within them, sending to the ingest queue only', () => {
      const job = workers.jobFunctions.get('trace-closing')!;
      templateOf(job).hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(5 minutes)',
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(job), 'Arn'] } })],
      });
      expect(functionResourceOf(job).Properties.Timeout).toBe(300);
      expect(Object.keys(environmentOf(job)).filter((name) => name.startsWith('QUEUE_URL_'))).toEqual([queueUrlEnv('ingest')]);
    });

    it('let auth/register send to the notify queue and keys/list to none', () => {
      expect(grantsAction(statementsOf(functionOf('auth/register')), 'sqs:SendMessage')).toBe(true);
      expect(grantsAction(statementsOf(functionOf('keys/list')), 'sqs:SendMessage')).toBe(false);
    });

    it('give every function item access to the table and its named indexes, no wildcard', () => {
      const tableLogicalId = logicalIdOf(stateful.table);
      for (const fn of functionsOf(service)) {
        const tableStatements = statementsOf(fn).filter((s) => mentions(s, tableLogicalId));
        expect(tableStatements.flatMap(actionsOf)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']));
        expect(JSON.stringify(tableStatements.map((s) => s.Resource))).not.toContain('*');
      }
    });

    it.each(catalog.queues)('let the $consumer consumer receive from its own queue', (queue) => {
      const statements = statementsOf(workers.consumerFunctions.get(queue.id)!);
      const queueLogicalId = logicalIdOf(stateful.queues.get(queue.id)!);
      expect(statements.some((s) => actionsOf(s).includes('sqs:ReceiveMessage') && mentions(s, queueLogicalId))).toBe(true);
    });

    it('let only the notify consumer send e-mail and SMS', () => {
      const notify = workers.consumerFunctions.get('notify')!;
      for (const fn of functionsOf(service)) {
        const statements = statementsOf(fn);
        expect(grantsAction(statements, 'ses:SendEmail')).toBe(fn === notify);
        expect(grantsAction(statements, 'sns:Publish')).toBe(fn === notify);
      }
    });
  });
});

describe('stateless stacks with a schedule and deployment settings', () => {
  const configured = buildTestApp({
    catalog: catalogWithSchedule,
    context: {
      publicAppUrl: 'https://app.example.com',
      jwtIssuer: 'https://auth.example.com',
      jwtExternalIssuers: '[{"issuer":"https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf","audiences":["client"]}]',
      corsAllowOrigins: 'https://app.example.com, https://admin.example.com',
      mailFrom: 'alerts@example.com',
      logLevel: 'warn',
      signUpPlan: 'pro',
    },
  });
  const [schedule] = catalogWithSchedule.schedules;

  it('run the schedule’s job on its rate', () => {
    const job = configured.workers.jobFunctions.get(schedule!.id)!;
    templateOf(job).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${schedule!.everyMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(job), 'Arn'] } })],
    });
    expect(functionsOf(configured)).toHaveLength(catalog.routes.length + 1 + catalog.queues.length + catalogWithSchedule.schedules.length);
  });

  it('pass the settings to every function and the CORS configuration', () => {
    for (const fn of functionsOf(configured)) {
      const variables = environmentOf(fn);
      expect(variables).toMatchObject({
        PUBLIC_APP_URL: 'https://app.example.com',
        JWT_ISSUER: 'https://auth.example.com',
        JWT_AUDIENCE: 'aos-api',
        MAIL_FROM: 'alerts@example.com',
        MAIL_TRANSPORT: 'ses',
        SMS_TRANSPORT: 'sns',
        LOG_LEVEL: 'WARN',
        SIGN_UP_PLAN: 'pro',
      });
      expect(JSON.parse(variables.JWT_EXTERNAL_ISSUERS as string)).toEqual([
        { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf', audiences: ['client'] },
      ]);
    }
    Template.fromStack(configured.api).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: { AllowOrigins: ['https://app.example.com', 'https://admin.example.com'] },
    });
  });

  it('rejects a sign-up plan that is not a plan at synthesis', () => {
    expect(() => buildTestApp({ context: { signUpPlan: 'enterprise' } })).toThrow(/signUpPlan must be one of trial, starter, pro/);
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
