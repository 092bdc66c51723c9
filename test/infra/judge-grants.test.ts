import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { queueUrlEnv } from '#shared/catalog.ts';
import type { ServiceApp } from '../../infra/aws/app.ts';
import type { ServiceFunction } from '../../infra/aws/service-function.ts';
import {
  actionsOf,
  buildTestApp,
  codeStacksOf,
  environmentOf,
  functionResourceOf,
  functionsOf,
  grantsAction,
  statementsOf,
  templateOf,
} from './service-app.ts';

function judgeOf(context: Record<string, unknown> = {}) {
  const app = buildTestApp({ context });
  // Synthesized while the tests are collected, as the templates they read are.
  app.app.synth();
  const invokeResources = (fn: ServiceFunction) =>
    statementsOf(fn)
      .filter((s) => actionsOf(s).includes('bedrock:InvokeModel'))
      .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))
      .map((r) => JSON.stringify(r));
  return { app, evaluate: app.workers.consumerFunctions.get('evaluate')!, invokeResources };
}

/** Every stack's templates, as one JSON text. */
const textOf = (app: ServiceApp): string => JSON.stringify(codeStacksOf(app).map((stack) => templateOf(stack).toJSON()));

describe('the evaluate consumer', () => {
  const { app, evaluate, invokeResources } = judgeOf();

  it('judges with Bedrock, on the default small model', () => {
    expect(environmentOf(evaluate)).toMatchObject({ JUDGE: 'bedrock', BEDROCK_MODEL_ID: 'amazon.nova-micro-v1:0' });
  });

  it('may invoke exactly that foundation model in its own Region, and nothing else on Bedrock', () => {
    const statements = statementsOf(evaluate).filter((s) => actionsOf(s).some((a) => a.startsWith('bedrock:')));
    expect(statements.flatMap(actionsOf)).toEqual(['bedrock:InvokeModel']);
    const [resource, ...others] = invokeResources(evaluate);
    expect(others).toEqual([]);
    expect(resource).toContain(':bedrock:');
    expect(resource).toContain('AWS::Region');
    expect(resource).toContain('::foundation-model/amazon.nova-micro-v1:0');
    expect(resource).not.toContain('*');
  });

  it('is the only function that may call Bedrock or choose the judge, but for the search that turns questions into queries', () => {
    const ask = app.routeFunctions.get('search/ask')!;
    for (const fn of functionsOf(app)) {
      if (fn === evaluate) continue;
      expect('JUDGE' in environmentOf(fn)).toBe(false);
      if (fn === ask) continue;
      expect(grantsAction(statementsOf(fn), 'bedrock:InvokeModel')).toBe(false);
    }
  });

  it('lets the search invoke its translating model only', () => {
    const ask = app.routeFunctions.get('search/ask')!;
    expect(environmentOf(ask)).toMatchObject({ ASK_TRANSLATOR: 'bedrock', ASK_MODEL_ID: 'amazon.nova-lite-v1:0' });
    expect(invokeResources(ask)).toEqual([expect.stringContaining('::foundation-model/amazon.nova-lite-v1:0')]);
  });

  it('sends only to the notify queue, and the ingest consumer may send it jobs', () => {
    expect(Object.keys(environmentOf(evaluate)).filter((k) => k.startsWith('QUEUE_URL_'))).toEqual([queueUrlEnv('notify')]);
    expect(environmentOf(app.workers.consumerFunctions.get('ingest')!)).toHaveProperty(queueUrlEnv('evaluate'));
  });
});

describe('the evaluate consumer with a cross-Region inference profile', () => {
  const { app, evaluate, invokeResources } = judgeOf({ bedrockModelId: 'us.amazon.nova-lite-v1:0' });

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
    const app = buildTestApp({ context: { timestreamDatabase: 'aos', timestreamTable: 'traces' } });
    const ingest = app.workers.consumerFunctions.get('ingest')!;
    const writing = functionsOf(app).filter((fn) => grantsAction(statementsOf(fn), 'timestream:WriteRecords'));
    expect(writing.map((fn) => fn.node.path)).toEqual([ingest.node.path]);
    expect(textOf(buildTestApp())).not.toContain('timestream:');
  });

  it('the profile narrator: only regenerating a profile and the learning job may invoke that one model', () => {
    const app = buildTestApp({ context: { profileNarratorModelId: 'amazon.nova-lite-v1:0' } });
    const narrators = [app.routeFunctions.get('profiles/regenerate')!, app.workers.jobFunctions.get('profile-learning')!];
    const invoking = functionsOf(app).filter((fn) => grantsAction(statementsOf(fn), 'bedrock:InvokeModel'));
    const judge = app.workers.consumerFunctions.get('evaluate')!;
    const ask = app.routeFunctions.get('search/ask')!;
    expect(invoking.map((fn) => fn.node.path).sort()).toEqual([...narrators, judge, ask].map((fn) => fn.node.path).sort());
    for (const fn of narrators) {
      const grants = statementsOf(fn).filter((s) => actionsOf(s).includes('bedrock:InvokeModel'));
      expect(JSON.stringify(grants)).toContain('foundation-model/amazon.nova-lite-v1:0');
    }
    const narrating = functionsOf(app)
      .filter((fn) => environmentOf(fn)['PROFILE_NARRATOR_MODEL_ID'] === 'amazon.nova-lite-v1:0')
      .map((fn) => functionResourceOf(fn).Properties.Description);
    expect(narrating.sort()).toEqual(['functions/http/profiles/regenerate.ts', 'functions/jobs/profile-learning.ts']);
  });
});
