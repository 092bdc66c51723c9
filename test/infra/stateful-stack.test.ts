import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { catalog } from '#shared/catalog.ts';
import { createTableInput, TABLE } from '#shared/store/table.ts';
import { buildTestApp, logicalIdOf } from './service-app.ts';

const { stateful } = buildTestApp();
const template = Template.fromStack(stateful);

/** Order-insensitive comparison of CloudFormation lists. */
const sorted = (items: unknown): unknown[] =>
  (items as unknown[])
    .map((item) => JSON.stringify(item))
    .sort()
    .map((item) => JSON.parse(item));

describe('stateful stack', () => {
  it('has one table, shaped exactly as the local runtime creates it', () => {
    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(1);
    const properties = tables[0]!.Properties;
    const expected = createTableInput('ignored');
    expect(properties.KeySchema).toEqual(expected.KeySchema);
    expect(sorted(properties.AttributeDefinitions)).toEqual(sorted(expected.AttributeDefinitions));
    expect(sorted(properties.GlobalSecondaryIndexes)).toEqual(sorted(expected.GlobalSecondaryIndexes));
    expect(properties.BillingMode).toBe(expected.BillingMode);
  });

  it('expires items by TTL and protects the table from loss', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it.each(catalog.queues)('gives queue $id its visibility timeout and a dead-letter queue', (queue) => {
    const queueId = logicalIdOf(stateful.queues.get(queue.id)!);
    const deadLetterId = logicalIdOf(stateful.deadLetterQueues.get(queue.id)!);
    const queues = template.findResources('AWS::SQS::Queue');
    expect(queues[queueId]?.Properties).toMatchObject({
      VisibilityTimeout: queue.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: queue.maxReceiveCount },
    });
    expect(queues[deadLetterId]?.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('encrypts every queue and denies it any request without TLS', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(2 * catalog.queues.length);
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')) as {
      Properties: { Queues: { Ref: string }[]; PolicyDocument: { Statement: Record<string, unknown>[] } };
    }[];
    for (const [logicalId, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId).toBeTruthy();
      const statements = policies
        .filter((policy) => policy.Properties.Queues.some((q) => q.Ref === logicalId))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
      expect(statements, logicalId).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Principal: { AWS: '*' },
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('keeps a generated 64-character signing seed, retained on stack deletion', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } },
      DeletionPolicy: 'Retain',
    });
  });

  it("keeps a generated 48-character secret for the console's distribution to prove itself to the API with", () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true } });
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
  });

  it('outputs the table name', () => {
    template.hasOutput('TableName', { Value: { Ref: logicalIdOf(stateful.table) } });
  });
});
