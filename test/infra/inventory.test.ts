import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { expect, it } from 'vitest';
import { buildTestApp } from './service-app.ts';

/** The inventory docs/deploying.md prices an idle deployment from: it must stay what the app synthesizes. */
const doc = readFileSync(new URL('../../docs/deploying.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const stated = (pattern: RegExp): number => {
  const match = pattern.exec(doc);
  if (!match) throw new Error(`docs/deploying.md no longer states ${pattern}`);
  return Number(match[1]);
};

it("docs/deploying.md's inventory is what the app synthesizes", () => {
  const { stacks } = buildTestApp();
  const count = (type: string) => stacks.reduce((n, stack) => n + Object.keys(Template.fromStack(stack).findResources(type)).length, 0);
  const numberWords = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
  expect(numberWords[stacks.length], 'the stacks').toBe(/deploys the service as (\w+) CloudFormation stacks/.exec(doc)?.[1]);
  expect(count('AWS::Lambda::Function'), 'Lambda functions').toBe(stated(/(\d+) Lambda functions/));
  expect(count('AWS::ApiGatewayV2::Route'), 'API routes').toBe(stated(/(\d+) API routes/));
  expect(count('AWS::SQS::Queue'), 'SQS queues').toBe(stated(/(\d+) SQS queues/));
  expect(count('AWS::S3::Bucket'), 'S3 buckets').toBe(stated(/(\d+) S3 buckets/));
  expect(count('AWS::Events::Rule'), 'schedules').toBe(stated(/(\d+) EventBridge schedules/));
  expect(count('AWS::Logs::LogGroup'), 'log groups').toBe(stated(/(\d+) log groups/));
  expect(count('AWS::Glue::TableOptimizer'), 'table optimizers').toBe(stated(/(\d+) table optimizers/));
  expect(count('AWS::Lambda::EventSourceMapping'), 'consumed queues').toBe(stated(/\((\d+) consumed/));
});
