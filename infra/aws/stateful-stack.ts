import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type Catalog, catalog as defaultCatalog } from '#shared/catalog.ts';
import { TABLE } from '#shared/store/table.ts';
import { constructId } from './names.ts';

/** What the stateless stack builds on: the data and the channels that outlive any deployment of the code. */
export interface StatefulResources {
  readonly table: dynamodb.ITable;
  /** By catalog queue id. */
  readonly queues: ReadonlyMap<string, sqs.IQueue>;
  /** By catalog queue id: where a queue's messages go after `maxReceiveCount` failed receives. */
  readonly deadLetterQueues: ReadonlyMap<string, sqs.IQueue>;
  /** The seed the functions derive the JWT ES256 key and the API-key pepper from. */
  readonly signingSeed: secretsmanager.ISecret;
  /**
   * What the console's distribution sends with every request it passes to the API, so that the routes
   * believe the viewer address it reports (`shared/http/client-address.ts`).
   */
  readonly originSecret: secretsmanager.ISecret;
}

export interface StatefulStackProps extends StackProps {
  /** @default the service's catalog */
  readonly catalog?: Catalog;
}

const DEAD_LETTER_RETENTION = Duration.days(14);

export class StatefulStack extends Stack implements StatefulResources {
  readonly table: dynamodb.Table;
  readonly queues = new Map<string, sqs.Queue>();
  readonly deadLetterQueues = new Map<string, sqs.Queue>();
  readonly signingSeed: secretsmanager.Secret;
  readonly originSecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    const catalog = props.catalog ?? defaultCatalog;

    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(TABLE.partitionKey),
      sortKey: stringKey(TABLE.sortKey),
      timeToLiveAttribute: TABLE.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of Object.values(TABLE.indexes)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    for (const queue of catalog.queues) {
      const name = constructId(queue.id);
      const deadLetterQueue = new sqs.Queue(this, `${name}DeadLetterQueue`, {
        retentionPeriod: DEAD_LETTER_RETENTION,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      this.deadLetterQueues.set(queue.id, deadLetterQueue);
      this.queues.set(
        queue.id,
        new sqs.Queue(this, `${name}Queue`, {
          visibilityTimeout: Duration.seconds(queue.visibilityTimeoutSeconds),
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: queue.maxReceiveCount },
        }),
      );
    }

    this.signingSeed = new secretsmanager.Secret(this, 'SigningSeed', {
      description: 'Seed of the JWT ES256 signing key and the API-key pepper',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Losing it invalidates every API key and session.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.signingSeed).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The seed derives the API-key pepper, so a new seed invalidates every issued API key; it is re-keyed deliberately, never on a rotation schedule.',
    });

    this.originSecret = new secretsmanager.Secret(this, 'OriginSecret', {
      description: "Sent by the console's CloudFront distribution to the API, which then believes the viewer address it reports",
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'CloudFront takes the value only when the distribution itself changes, so a scheduled rotation would leave it sending an old one (which the routes accept only while it is the previous version); it is re-keyed by hand, by putting a new value and deploying the console stack with originSecretVersionId naming it (docs/limits-and-plans.md).',
    });

    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}

/** Item-level data actions; no table management (DescribeTable, streams, ...). */
const TABLE_DATA_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/**
 * Reads and writes of items in the table and its indexes, each index named: `table.grantReadWriteData`
 * would grant on `index/*` and add table-management actions the functions never call.
 */
export function grantTableData(table: dynamodb.ITable, grantee: iam.IGrantable): iam.Grant {
  const indexArns = Object.values(TABLE.indexes).map((index) => `${table.tableArn}/index/${index.name}`);
  return iam.Grant.addToPrincipal({ grantee, actions: TABLE_DATA_ACTIONS, resourceArns: [table.tableArn, ...indexArns] });
}
