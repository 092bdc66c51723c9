import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, CfnOutput, DockerImage, Duration, Fn, RemovalPolicy, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { API_BASE_PATH } from '#shared/catalog.ts';
import { hostedSignInOrigins, parseExternalIssuers } from '#shared/external-issuers.ts';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#shared/http/client-address.ts';
import { consoleContentSecurityPolicy } from '../../console/security-headers.ts';
import { deploymentSettings } from './settings.ts';

/** The wildcards of the grant CDK's BucketDeployment gives its copying function (s3 sync, then an invalidation). */
const COPIER_WILDCARDS = [
  'Action::s3:GetBucket*',
  'Action::s3:GetObject*',
  'Action::s3:List*',
  'Action::s3:Abort*',
  'Action::s3:DeleteObject*',
  'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
  'Resource::<SiteE53D7754.Arn>/*',
  'Resource::*',
];

/** The viewer request function of `/api/*`: the viewer's address, replacing any header of that name the viewer sent. */
export const viewerAddressFunction = `function handler(event) { event.request.headers['${VIEWER_ADDRESS_HEADER}'] = { value: event.viewer.ip }; return event.request; }`;

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ConsoleStackProps extends StackProps {
  /** The service's HTTP API; CloudFront sends `/api/*` to it, so the console calls it on its own origin. */
  readonly api: IHttpApi;
  /** Sent to the API with every request, so that it believes the viewer address sent beside it. */
  readonly originSecret: ISecret;
}

/**
 * The console's build, made at synth on this machine (no Docker): `console/scripts/build.ts`
 * builds it (only if its sources changed) and copies it into the asset's output directory.
 */
export const consoleAssetSource = () =>
  Source.asset(join(REPO_ROOT, 'console'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-slim'),
      local: {
        tryBundle(outputDir) {
          execFileSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'console/scripts/build.ts'), outputDir], { cwd: REPO_ROOT, stdio: 'inherit' });
          return true;
        },
      },
    },
  });

/**
 * The console on AWS: its files in a private bucket that only this distribution reads (origin
 * access control), the API behind `/api/*` on the same origin (no CORS), and the security headers.
 * Its own stack, so it deploys (and is destroyed) apart from the service's.
 */
export class ConsoleStack extends Stack {
  readonly distribution: cloudfront.Distribution;
  readonly consoleUrl: string;

  constructor(scope: Construct, id: string, props: ConsoleStackProps) {
    super(scope, id, props);

    const logs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(logs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket is where the access logs go; logging its own access would log the logging.',
    });

    const site = new s3.Bucket(this, 'Site', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'site/',
      // The console's files come from the repository on every deploy; the bucket outlives the stack like the logs do.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The hosted sign-ins (context jwtExternalIssuers) the console exchanges codes with: checked here, so a bad one fails synth.
    const signInOrigins = hostedSignInOrigins(parseExternalIssuers(deploymentSettings(this).jwtExternalIssuers, 'context jwtExternalIssuers'));
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Agent Observability console: CSP, HSTS, no framing, no sniffing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleContentSecurityPolicy(signInOrigins), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, preload: true, override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.SAME_ORIGIN, override: true },
      },
    });

    // A page path (`/traces/abc`) is the app itself: its router shows the page. Files keep their paths.
    const spaRouting = new cloudfront.Function(this, 'SpaRouting', {
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Serve index.html for console page paths',
      code: cloudfront.FunctionCode.fromInline(
        "function handler(event) { var r = event.request; if (!r.uri.startsWith('/assets/') && r.uri.indexOf('.', r.uri.lastIndexOf('/')) === -1) { r.uri = '/index.html'; } return r; }",
      ),
    });

    // API Gateway sees CloudFront's address; the API counts a console user by the viewer's (shared/http/client-address.ts).
    const viewerAddress = new cloudfront.Function(this, 'ViewerAddress', {
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: "Pass the viewer's address to the API",
      code: cloudfront.FunctionCode.fromInline(viewerAddressFunction),
    });

    // CloudFormation reads a dynamic reference again only when the distribution changes: naming the
    // version (context originSecretVersionId) is what takes a new value to CloudFront.
    const { originSecretVersionId } = deploymentSettings(this);
    const originSecretValue = originSecretVersionId
      ? SecretValue.secretsManager(props.originSecret.secretArn, { versionId: originSecretVersionId })
      : props.originSecret.secretValue;

    const apiDomain = Fn.select(2, Fn.split('/', props.api.apiEndpoint));
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Agent Observability console and API',
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(site),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: spaRouting, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
        compress: true,
      },
      additionalBehaviors: {
        [`${API_BASE_PATH}/*`]: {
          origin: new HttpOrigin(apiDomain, {
            protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
            // A dynamic reference: CloudFormation reads the secret when it updates the distribution; the template holds only its ARN.
            customHeaders: { [ORIGIN_SECRET_HEADER]: originSecretValue.unsafeUnwrap() },
          }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Never cached; with caching off, every viewer header (Authorization too) and cookie reaches the API, less Host.
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          functionAssociations: [{ function: viewerAddress, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
          responseHeadersPolicy: headers,
          compress: true,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'The console and API serve customers wherever they are; access is by sign-in, not by country.' },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          "Abuse is limited per credential and per client address by the API's own rate limits (and the HTTP API stage's throttle); a WAF web ACL is an account-level choice left to the operator.",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default certificate, whose *.cloudfront.net domain CloudFront serves with TLS 1.2+ for modern viewers; a custom domain with its own certificate and policy is the operator's choice.",
      },
    );

    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [consoleAssetSource()],
      destinationBucket: site,
      distribution: this.distribution,
      distributionPaths: ['/index.html'],
      memoryLimit: 512,
    });
    // The copying function is CDK's own (one per stack, beside the deployment), run only by CloudFormation at deploy time.
    const copier = this.node.findAll().find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    for (const target of [deployment, ...(copier ? [copier] : [])]) {
      Validations.of(target).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: "CDK's BucketDeployment function logs through AWSLambdaBasicExecutionRole; it runs only during deployments.",
        },
        ...COPIER_WILDCARDS.map((wildcard) => ({
          id: `AwsSolutions-IAM5[${wildcard}]`,
          reason:
            "CDK's BucketDeployment grant: read the staged asset in the CDK assets bucket, write and delete the console's objects in its own bucket, invalidate this distribution.",
        })),
        { id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment function pins the runtime its bundled AWS CLI layer supports." },
      );
    }

    this.consoleUrl = `https://${this.distribution.distributionDomainName}`;
    new CfnOutput(this, 'ConsoleUrl', { value: this.consoleUrl, description: 'The console, with the API at /api on the same origin' });
  }
}
