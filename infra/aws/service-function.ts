import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, type RecursiveLoop, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { httpHandlerModule } from '#shared/catalog.ts';
import { PACKED_DESCRIPTION_GLOBAL, packApiDescription } from '#shared/http/openapi-document.ts';
import { apiDescription } from '#shared/schemas/openapi.ts';

/** The repository root: esbuild resolves from here, and package-lock.json lives here. */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const DEFAULT_MEMORY_MB = 256;
export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/** ESM bundles have no `require`; some CommonJS dependencies bundled into them still call it. */
const CREATE_REQUIRE_BANNER = "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);";

/** esbuild settings of a function, as the CDK and the bundle reports (test/infra, the cold-start bench) pass them. */
export interface Bundling {
  readonly format: 'esm';
  readonly platform: 'node';
  readonly target: string;
  readonly mainFields: readonly string[];
  readonly banner: string;
  readonly minify: boolean;
  /** Packages left out of the bundle: only the local runtime, which has node_modules, ever loads them. */
  readonly external: readonly string[];
  /** Globals replaced by JavaScript expressions (esbuild `define`). */
  readonly define?: Readonly<Record<string, string>>;
}

/** The esbuild settings of every function, shared with the bundle tests (test/infra) and the cold-start bench. */
export const BUNDLING: Bundling = {
  format: 'esm',
  platform: 'node',
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  minify: true,
  /** DuckDB, the local trace lake, is imported only when LAKE=duckdb (shared/adapters/lake-duckdb.ts); on AWS the lake is Athena's. */
  external: ['@duckdb/node-api'],
};

const OPENAPI_MODULE = httpHandlerModule('system/openapi');
let packedApiDescription: string | undefined;

/** The esbuild settings of one function (a handler module relative to the project root). */
export function bundlingOf(module: string): Bundling {
  if (module !== OPENAPI_MODULE) return BUNDLING;
  // The OpenAPI function serves a description built here, at synth time (shared/http/openapi-document.ts).
  packedApiDescription ??= packApiDescription(apiDescription());
  return { ...BUNDLING, define: { [PACKED_DESCRIPTION_GLOBAL]: JSON.stringify(packedApiDescription) } };
}

export interface ServiceFunctionProps {
  /** Handler module relative to the project root (`httpHandlerModule`, `workerModule`, `jobModule`); it exports `handler`. */
  readonly module: string;
  readonly timeout: Duration;
  readonly memoryMb?: number;
  readonly environment?: Record<string, string>;
  /**
   * Lambda stops a chain of invocations through a queue after about 16 (it follows the X-Ray trace
   * header the calls carry); `ALLOW` for a function that sends to its own queue on purpose.
   * @default RecursiveLoop.TERMINATE
   */
  readonly recursiveLoop?: RecursiveLoop;
  /** At most this many invocations at once; more wait (asynchronous ones are queued and retried by Lambda). */
  readonly reservedConcurrency?: number;
}

/**
 * Every Lambda function of the service: one bundled handler module on the newest Node.js runtime, arm64,
 * X-Ray active tracing, its own log group, and a role that starts with nothing but writing to that group.
 */
export class ServiceFunction extends NodejsFunction {
  static readonly RUNTIME = Runtime.NODEJS_24_X;

  /** Always set: the constructor creates it. */
  declare readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // Created beside the function rather than inside it: the function takes both at construction.
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: LOG_RETENTION });
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.module}`,
    });

    const bundling = bundlingOf(props.module);
    super(scope, id, {
      entry: join(PROJECT_ROOT, props.module),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.module,
      runtime: ServiceFunction.RUNTIME,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      timeout: props.timeout,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      recursiveLoop: props.recursiveLoop,
      reservedConcurrentExecutions: props.reservedConcurrency,
      logGroup,
      role,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: [...bundling.mainFields],
        banner: bundling.banner,
        minify: bundling.minify,
        sourceMap: true,
        sourcesContent: false,
        // The SDK clients are bundled, not taken from the runtime: the runtime's copy changes version
        // under a deployed function (and lags the clients' fixes), while a bundle runs the versions
        // package-lock.json pins and the tests ran; esbuild keeps only the clients a function uses.
        bundleAwsSDK: true,
        externalModules: [...bundling.external],
        ...(bundling.define ? { define: { ...bundling.define } } : {}),
      },
    });

    // Instead of AWSLambdaBasicExecutionRole, which may create and write any log group.
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions.',
    });
  }
}
