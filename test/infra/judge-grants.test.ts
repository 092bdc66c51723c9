import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { ServiceFunction } from '../../infra/aws/service-function.ts';
import { queueUrlEnv } from '../../shared/catalog.ts';
import { actionsOf, buildTestApp, grantsAction, logicalIdOf, statementsOf } from './service-app.ts';

function judgeOf(context: Record<string, unknown> = {}) {
  const app = buildTestApp({ context });
  const template = Template.fromStack(app.stateless);
  const environmentOf = (fn: ServiceFunction) =>
    (template.findResources('AWS::Lambda::Function')[logicalIdOf(app.stateless, fn)]!.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
  const invokeResources = (fn: ServiceFunction) =>
    statementsOf(template, app.stateless, fn)
      .filter((s) => actionsOf(s).includes('bedrock:InvokeModel'))
      .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))
      .map((r) => JSON.stringify(r));
  return { app, template, evaluate: app.stateless.consumerFunctions.get('evaluate')!, environmentOf, invokeResources };
}

describe('the evaluate consumer', () => {
  const { app, template, evaluate, environmentOf, invokeResources } = judgeOf();

  it('judges with Bedrock, on the default small model', () => {
    expect(environmentOf(evaluate)).toMatchObject({ JUDGE: 'bedrock', BEDROCK_MODEL_ID: 'amazon.nova-micro-v1:0' });
  });

  it('may invoke exactly that foundation model in its own Region, and nothing else on Bedrock', () => {
    const statements = statementsOf(template, app.stateless, evaluate).filter((s) => actionsOf(s).some((a) => a.startsWith('bedrock:')));
    expect(statements.flatMap(actionsOf)).toEqual(['bedrock:InvokeModel']);
    const [resource, ...others] = invokeResources(evaluate);
    expect(others).toEqual([]);
    expect(resource).toContain(':bedrock:');
    expect(resource).toContain('AWS::Region');
    expect(resource).toContain('::foundation-model/amazon.nova-micro-v1:0');
    expect(resource).not.toContain('*');
  });

  it('is the only function that may call Bedrock or choose the judge', () => {
    for (const fn of [...app.stateless.routeFunctions.values(), ...app.stateless.consumerFunctions.values()]) {
      if (fn === evaluate) continue;
      expect(grantsAction(statementsOf(template, app.stateless, fn), 'bedrock:InvokeModel')).toBe(false);
      expect('JUDGE' in environmentOf(fn)).toBe(false);
    }
  });

  it('sends only to the notify queue, and the ingest consumer may send it jobs', () => {
    expect(Object.keys(environmentOf(evaluate)).filter((k) => k.startsWith('QUEUE_URL_'))).toEqual([queueUrlEnv('notify')]);
    expect(environmentOf(app.stateless.consumerFunctions.get('ingest')!)).toHaveProperty(queueUrlEnv('evaluate'));
  });
});

describe('the evaluate consumer with a cross-Region inference profile', () => {
  const { app, evaluate, environmentOf, invokeResources } = judgeOf({ bedrockModelId: 'us.amazon.nova-lite-v1:0' });

  it('may invoke the profile and its one model in the Regions the profile routes to', () => {
    expect(environmentOf(evaluate)).toMatchObject({ BEDROCK_MODEL_ID: 'us.amazon.nova-lite-v1:0' });
    const resources = invokeResources(evaluate);
    expect(resources).toHaveLength(2);
    expect(resources.find((r) => r.includes('inference-profile/us.amazon.nova-lite-v1:0'))).toContain('AWS::AccountId');
    expect(resources.find((r) => r.includes('foundation-model'))).toMatch(/:bedrock:\*::foundation-model\/amazon\.nova-lite-v1:0/);
  });

  it('passes cdk-nag, the Region wildcard acknowledged with a reason', () => {
    expect(() => app.app.synth()).not.toThrow();
    const { violations } = new AwsSolutionsChecks().validateScope(app.app);
    expect(violations.map((v) => v.ruleName)).toEqual([]);
  });
});

describe('optional integrations are granted only when configured', () => {
  it('the Timestream sink: the ingest worker may write to that one table', () => {
    const template = Template.fromStack(buildTestApp({ context: { timestreamDatabase: 'aos', timestreamTable: 'traces' } }).stateless);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'timestream:WriteRecords' })]) },
    });
    const withoutSink = Template.fromStack(buildTestApp().stateless);
    expect(JSON.stringify(withoutSink.toJSON())).not.toContain('timestream:');
  });

  it('the profile narrator: only regenerating a profile and the learning job may invoke that one model', () => {
    const template = Template.fromStack(buildTestApp({ context: { profileNarratorModelId: 'amazon.nova-lite-v1:0' } }).stateless);
    const policies = template.findResources('AWS::IAM::Policy');
    const narrator = Object.entries(policies).find(([id]) => id.startsWith('NarratorModelPolicy'));
    expect(narrator).toBeDefined();
    expect(JSON.stringify(narrator![1])).toContain('nova-lite');
    expect((narrator![1] as { Properties: { Roles: unknown[] } }).Properties.Roles).toHaveLength(2);
    const narrating = Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((fn) => (fn as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables?.['PROFILE_NARRATOR_MODEL_ID'])
      .map((fn) => (fn as { Properties: { Description: string } }).Properties.Description);
    expect(narrating.sort()).toEqual(['functions/http/profiles/regenerate.ts', 'functions/jobs/profile-learning.ts']);
  });
});
