import { ArnFormat, Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { QUERY_RESULTS_PREFIX } from '#shared/adapters/exports-athena.ts';
import { ROUTING_FIELD } from '#shared/adapters/lake-firehose.ts';
import type { LakeCapability } from '#shared/catalog.ts';
import { LAKE_TABLES, type LakeColumnType, type LakeTable } from '#shared/domain/lake/schema.ts';
import { LOG_RETENTION, type ServiceFunction } from './service-function.ts';

/**
 * The trace lake on AWS, in a stack of its own (its data outlives deployments of the code):
 *
 * - Three Apache Iceberg tables (traces, spans, signals) in a Glue database, in an S3 bucket. Iceberg
 *   rather than plain Parquet because the lake must change rows, not only add them: a trace written
 *   again (a redelivered message, a late span) replaces its rows through Firehose's upserts on the
 *   tables' unique keys, and a deleted agent's rows and expired rows leave through Athena DELETE;
 *   Glue's table optimizers compact the small files Firehose commits, expire old snapshots (which is
 *   when deleted rows' files leave S3) and remove orphan files. Partitioned by a bucket of the tenant
 *   and the day, so a query reads one tenant's days only.
 * - One Amazon Data Firehose stream (direct PUT) delivering to the three tables: each record names its
 *   table and goes in as an `update`. It buffers LAKE_BUFFER_SECONDS (context `lakeBufferSeconds`,
 *   60 by default): how long after ingestion a trace becomes searchable.
 * - An Athena workgroup (engine 3) that enforces its settings: a per-query scan limit (context
 *   `lakeScanLimitGb`, 10 GB by default) and results written, encrypted, to a results bucket whose
 *   lifecycle deletes them after 7 days; exports are query results too (a CSV SELECT's, a CTAS table's files).
 *
 * A function reaches it through the lake capabilities its catalog row names (`LakeCapability`: write,
 * read, delete, export, export links), each granted by `grant` on the function's own role.
 */
export interface LakeResources {
  /** Gives a function what one of its lake capabilities needs: the lake's names in its environment, and the grants. */
  grant(fn: ServiceFunction, capability: LakeCapability): void;
}

const DEFAULT_BUFFER_SECONDS = 60;
const DEFAULT_SCAN_LIMIT_GB = 10;
const RESULTS_LIFETIME = Duration.days(7);
/** Iceberg field ids: the columns count from 1, partition fields from 1000 (Iceberg's convention). */
const FIRST_PARTITION_FIELD_ID = 1000;
const TENANT_BUCKETS = 16;
const DAY_MS = 86_400_000;
const TABLES_PREFIX = 'tables';
const FIREHOSE_ERRORS_PREFIX = 'firehose-errors';

const ICEBERG_TYPES: Record<LakeColumnType, string> = { string: 'string', long: 'long', double: 'double', boolean: 'boolean' };

/** A Glue name from the stack's: lower case, letters, digits and underscores. */
const glueName = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .slice(0, 200);

function numberContext(stack: Stack, key: string, fallback: number, min: number, max: number): number {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`context ${key} must be a number from ${min} to ${max}`);
  return n;
}

/** The cdk-nag finding of a wildcard grant on `resource` (pseudo parameters written `<AWS::AccountId>`), to acknowledge exactly that grant. */
function wildcardFinding(stack: Stack, resource: string): string {
  const resolved: unknown = stack.resolve(resource);
  const text =
    typeof resolved === 'string'
      ? resolved
      : (resolved as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1]
          .map((part) => (typeof part === 'string' ? part : `<${(part as { Ref: string }).Ref}>`))
          .join('');
  return `AwsSolutions-IAM5[Resource::${text}]`;
}

export class LakeStack extends Stack implements LakeResources {
  /**
   * The names of the lake's resources, fixed by the stack's name, account and Region, so that the
   * functions' stack builds their ARNs itself: grants by reference would make each stack need the other.
   */
  readonly names: { dataBucket: string; resultsBucket: string; stream: string; workgroup: string };
  readonly dataBucket: s3.Bucket;
  readonly resultsBucket: s3.Bucket;
  readonly database: string;
  readonly exportsDatabase: string;
  readonly workgroup: athena.CfnWorkGroup;
  readonly deliveryStream: firehose.CfnDeliveryStream;
  readonly bufferSeconds: number;
  readonly scanLimitBytes: number;
  private readonly tables: Array<{ table: LakeTable; resource: glue.CfnTable }> = [];

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    this.bufferSeconds = numberContext(this, 'lakeBufferSeconds', DEFAULT_BUFFER_SECONDS, 0, 900);
    this.scanLimitBytes = Math.round(numberContext(this, 'lakeScanLimitGb', DEFAULT_SCAN_LIMIT_GB, 0.01, 1024) * 1024 ** 3);
    this.database = glueName(`${this.stackName}_lake`);
    this.exportsDatabase = glueName(`${this.stackName}_lake_exports`);
    const base = this.stackName.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
    this.names = {
      dataBucket: `${base}-data-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
      resultsBucket: `${base}-results-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
      stream: `${this.stackName}-records`,
      workgroup: glueName(`${this.stackName}_lake`),
    };

    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: "This bucket receives the lake buckets' server access logs; logging it into itself would loop.",
    });
    const bucket = (name: string, props: s3.BucketProps) =>
      new s3.Bucket(this, name, {
        encryption: s3.BucketEncryption.S3_MANAGED,
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        serverAccessLogsBucket: accessLogs,
        serverAccessLogsPrefix: `${name}/`,
        ...props,
      });
    this.dataBucket = bucket('Data', {
      bucketName: this.names.dataBucket,
      // The lake is data, not code: a new deployment of the stacks must never delete it.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ prefix: `${FIREHOSE_ERRORS_PREFIX}/`, expiration: Duration.days(30) }, { abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    this.resultsBucket = bucket('Results', {
      bucketName: this.names.resultsBucket,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: RESULTS_LIFETIME, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });

    const database = new glue.CfnDatabase(this, 'Database', {
      catalogId: this.account,
      databaseInput: { name: this.database, description: 'Agent Observability Service: the trace lake (Iceberg)' },
    });
    new glue.CfnDatabase(this, 'ExportsDatabase', {
      catalogId: this.account,
      databaseInput: { name: this.exportsDatabase, description: "Agent Observability Service: each export's table while Athena writes its file" },
    });

    for (const table of LAKE_TABLES) this.tables.push({ table, resource: this.icebergTable(table, database) });
    this.optimizeTables();
    this.deliveryStream = this.firehoseStream();
    this.workgroup = new athena.CfnWorkGroup(this, 'Workgroup', {
      name: this.names.workgroup,
      description: 'Agent Observability Service: searches and exports over the trace lake',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        bytesScannedCutoffPerQuery: this.scanLimitBytes,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: this.resultsBucket.s3UrlForObject(QUERY_RESULTS_PREFIX),
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });

    new CfnOutput(this, 'LakeDatabase', { value: this.database });
    new CfnOutput(this, 'LakeWorkgroup', { value: this.workgroup.ref });
    new CfnOutput(this, 'LakeDeliveryStream', { value: this.deliveryStream.ref });
  }

  /** An Iceberg table of the schema, partitioned by a bucket of the tenant and the day of its time column. */
  private icebergTable(table: LakeTable, database: glue.CfnDatabase): glue.CfnTable {
    const fieldId = (name: string) => table.columns.findIndex((c) => c.name === name) + 1;
    const resource = new glue.CfnTable(this, `${table.name.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}Table`, {
      catalogId: this.account,
      databaseName: this.database,
      name: table.name,
      openTableFormatInput: {
        icebergInput: {
          metadataOperation: 'CREATE',
          version: '2',
          icebergTableInput: {
            location: this.dataBucket.s3UrlForObject(`${TABLES_PREFIX}/${table.name}/`),
            schema: {
              type: 'struct',
              schemaId: 0,
              fields: table.columns.map((c, i) => ({ id: i + 1, name: c.name, type: ICEBERG_TYPES[c.type], required: c.required === true, doc: c.doc })),
              identifierFieldIds: table.key.map(fieldId),
            },
            partitionSpec: {
              specId: 0,
              fields: [
                { fieldId: FIRST_PARTITION_FIELD_ID, name: 'tenant_bucket', sourceId: fieldId('tenant_id'), transform: `bucket[${TENANT_BUCKETS}]` },
                { fieldId: FIRST_PARTITION_FIELD_ID + 1, name: 'day', sourceId: fieldId(table.time), transform: `truncate[${DAY_MS}]` },
              ],
            },
            properties: { 'write.format.default': 'parquet', 'write.parquet.compression-codec': 'zstd', 'write.delete.mode': 'merge-on-read' },
          },
        },
      },
    });
    resource.addResourceDependency(database);
    return resource;
  }

  /** Compaction of Firehose's small files, snapshot expiry (which frees deleted rows' files) and orphan cleanup. */
  private optimizeTables(): void {
    const role = new iam.Role(this, 'TableOptimizerRole', {
      assumedBy: new iam.ServicePrincipal('glue.amazonaws.com'),
      description: 'Glue table optimizers of the trace lake',
    });
    this.grantTablesReadWrite('TableOptimizerTables', role);
    const policy = new iam.Policy(this, 'TableOptimizerLogs', {
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [
            this.formatArn({ service: 'logs', resource: 'log-group', resourceName: '/aws-glue/iceberg-*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
          ],
        }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: wildcardFinding(
        this,
        this.formatArn({ service: 'logs', resource: 'log-group', resourceName: '/aws-glue/iceberg-*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
      ),
      reason: "Glue names the optimizers' log groups and streams itself, under /aws-glue/iceberg-*.",
    });
    for (const { table, resource } of this.tables) {
      const name = resource.node.id.replace(/Table$/, '');
      const optimizer = (type: string, configuration: Omit<glue.CfnTableOptimizer.TableOptimizerConfigurationProperty, 'roleArn' | 'enabled'>) => {
        const o = new glue.CfnTableOptimizer(this, `${name}${type.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}`, {
          catalogId: this.account,
          databaseName: this.database,
          tableName: table.name,
          type,
          tableOptimizerConfiguration: { roleArn: role.roleArn, enabled: true, ...configuration },
        });
        o.addResourceDependency(resource);
        o.node.addDependency(role);
      };
      optimizer('compaction', {});
      optimizer('retention', {
        retentionConfiguration: { icebergConfiguration: { snapshotRetentionPeriodInDays: 1, numberOfSnapshotsToRetain: 1, cleanExpiredFiles: true } },
      });
      optimizer('orphan_file_deletion', { orphanFileDeletionConfiguration: { icebergConfiguration: { orphanFileRetentionPeriodInDays: 3 } } });
    }
  }

  /** The lake tables' Glue ARNs, as `stack` writes them. */
  private tableArns(stack: Stack): string[] {
    return [
      stack.formatArn({ service: 'glue', resource: 'catalog' }),
      stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.database }),
      ...this.tables.map(({ table }) => stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${this.database}/${table.name}` })),
    ];
  }

  /** An S3 ARN in one of the lake's buckets (`prefix` of its objects, or the bucket itself). */
  private s3Arn(bucket: 'dataBucket' | 'resultsBucket', objects?: string): string {
    return `arn:${Aws.PARTITION}:s3:::${this.names[bucket]}${objects === undefined ? '' : `/${objects}`}`;
  }

  /** Reads and writes of the tables' metadata (Glue) and files (S3), as Iceberg writers need. */
  private grantTablesReadWrite(id: string, role: iam.IRole): void {
    const objects = [this.s3Arn('dataBucket', `${TABLES_PREFIX}/*`), this.s3Arn('dataBucket', `${FIREHOSE_ERRORS_PREFIX}/*`)];
    const policy = new iam.Policy(this, id, {
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          actions: ['glue:GetCatalog', 'glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:UpdateTable'],
          resources: this.tableArns(this),
        }),
        new iam.PolicyStatement({ actions: ['s3:ListBucket', 's3:GetBucketLocation'], resources: [this.s3Arn('dataBucket')] }),
        new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], resources: objects }),
      ],
    });
    Validations.of(policy).acknowledge(
      ...objects.map((resource) => ({
        id: wildcardFinding(this, resource),
        reason:
          "Iceberg writes data, delete and metadata files of its own naming under each table's location; the grant is limited to the lake's table and error prefixes.",
      })),
    );
  }

  private firehoseStream(): firehose.CfnDeliveryStream {
    const role = new iam.Role(this, 'DeliveryRole', {
      assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com'),
      description: 'Delivers trace lake records to the Iceberg tables',
    });
    this.grantTablesReadWrite('DeliveryTables', role);
    const logGroup = new logs.LogGroup(this, 'DeliveryLogs', { retention: LOG_RETENTION });
    const logStream = new logs.LogStream(this, 'DeliveryErrors', { logGroup });
    logGroup.grantWrite(role);
    const stream = new firehose.CfnDeliveryStream(this, 'DeliveryStream', {
      deliveryStreamName: this.names.stream,
      deliveryStreamType: 'DirectPut',
      deliveryStreamEncryptionConfigurationInput: { keyType: 'AWS_OWNED_CMK' },
      icebergDestinationConfiguration: {
        roleArn: role.roleArn,
        catalogConfiguration: { catalogArn: this.formatArn({ service: 'glue', resource: 'catalog' }) },
        bufferingHints: { intervalInSeconds: this.bufferSeconds, sizeInMBs: 64 },
        retryOptions: { durationInSeconds: 3600 },
        s3BackupMode: 'FailedDataOnly',
        s3Configuration: {
          bucketArn: this.s3Arn('dataBucket'),
          roleArn: role.roleArn,
          errorOutputPrefix: `${FIREHOSE_ERRORS_PREFIX}/`,
          bufferingHints: { intervalInSeconds: this.bufferSeconds, sizeInMBs: 64 },
        },
        cloudWatchLoggingOptions: { enabled: true, logGroupName: logGroup.logGroupName, logStreamName: logStream.logStreamName },
        // Each record names its table; every write is an update, which the unique keys make an upsert.
        processingConfiguration: {
          enabled: true,
          processors: [
            {
              type: 'MetadataExtraction',
              parameters: [
                {
                  parameterName: 'MetadataExtractionQuery',
                  parameterValue: `{destinationDatabaseName: "${this.database}", destinationTableName: .${ROUTING_FIELD}, operation: "update"}`,
                },
                { parameterName: 'JsonParsingEngine', parameterValue: 'JQ-1.6' },
              ],
            },
          ],
        },
        destinationTableConfigurationList: this.tables.map(({ table }) => ({
          destinationDatabaseName: this.database,
          destinationTableName: table.name,
          uniqueKeys: [...table.key],
          s3ErrorOutputPrefix: `${FIREHOSE_ERRORS_PREFIX}/${table.name}/`,
        })),
      },
    });
    stream.node.addDependency(role);
    for (const { resource } of this.tables) stream.addResourceDependency(resource);
    return stream;
  }

  grant(fn: ServiceFunction, capability: LakeCapability): void {
    const stack = Stack.of(fn);
    fn.addEnvironment('LAKE', 'athena');
    if (capability === 'lakeWrite') {
      fn.addEnvironment('LAKE_FIREHOSE_STREAM', this.names.stream);
    } else {
      fn.addEnvironment('LAKE_DATABASE', this.database);
      fn.addEnvironment('LAKE_WORKGROUP', this.names.workgroup);
      fn.addEnvironment('LAKE_EXPORTS_BUCKET', this.names.resultsBucket);
      fn.addEnvironment('LAKE_EXPORTS_DATABASE', this.exportsDatabase);
    }
    // On the function's own role, in its stack: ARNs built from the lake's fixed names, not references to it.
    const grants = this.grantsOf(capability, stack);
    for (const grant of grants) fn.addToRolePolicy(new iam.PolicyStatement(grant));
    const wildcards = [
      ...new Set(
        grants
          .flatMap((g) => g.resources)
          .map((r) => wildcardFinding(stack, r))
          .filter((finding) => finding.includes('*')),
      ),
    ];
    if (wildcards.length > 0) {
      Validations.of(fn.role).acknowledge(
        ...wildcards.map((id) => ({
          id,
          reason: `Athena and Iceberg read and write files of their own naming: the tables' files under ${TABLES_PREFIX}/, query results and exports under ${QUERY_RESULTS_PREFIX} and the exports' short-lived tables export_*; each grant is limited to its prefix.`,
        })),
      );
    }
  }

  /** The statements a lake capability needs, as `stack` writes the ARNs. */
  private grantsOf(capability: LakeCapability, stack: Stack): Array<{ actions: string[]; resources: string[] }> {
    // Running an Athena query over the lake: the workgroup, the tables' metadata and files, and the results Athena writes with the caller's credentials.
    const queries = [
      {
        actions: [
          'athena:StartQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:StopQueryExecution',
          'athena:GetQueryRuntimeStatistics',
        ],
        resources: [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.names.workgroup })],
      },
      { actions: ['glue:GetCatalog', 'glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartitions'], resources: this.tableArns(stack) },
      { actions: ['s3:ListBucket', 's3:GetBucketLocation'], resources: [this.s3Arn('dataBucket'), this.s3Arn('resultsBucket')] },
      { actions: ['s3:GetObject'], resources: [this.s3Arn('dataBucket', `${TABLES_PREFIX}/*`)] },
      // A CTAS's table files too, under tables/.
      { actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'], resources: [this.s3Arn('resultsBucket', `${QUERY_RESULTS_PREFIX}*`)] },
    ];
    switch (capability) {
      case 'lakeWrite':
        return [
          {
            actions: ['firehose:PutRecordBatch'],
            resources: [stack.formatArn({ service: 'firehose', resource: 'deliverystream', resourceName: this.names.stream })],
          },
        ];
      case 'lakeRead':
        return queries;
      case 'lakeDelete':
        return [
          ...queries,
          { actions: ['glue:UpdateTable'], resources: this.tableArns(stack) },
          { actions: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], resources: [this.s3Arn('dataBucket', `${TABLES_PREFIX}/*`)] },
        ];
      case 'lakeExport':
        return [
          ...queries,
          {
            actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:CreateTable', 'glue:DeleteTable'],
            resources: [
              stack.formatArn({ service: 'glue', resource: 'catalog' }),
              stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.exportsDatabase }),
              stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${this.exportsDatabase}/export_*` }),
            ],
          },
        ];
      case 'exportLinks':
        // A presigned URL works with the signer's rights: reading the exports, which are query results.
        return [{ actions: ['s3:GetObject'], resources: [this.s3Arn('resultsBucket', `${QUERY_RESULTS_PREFIX}*`)] }];
    }
  }
}
