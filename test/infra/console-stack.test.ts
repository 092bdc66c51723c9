import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#shared/http/client-address.ts';
import { type ConsoleStack, viewerAddressFunction } from '../../infra/aws/console-stack.ts';
import { buildTestApp } from './service-app.ts';

const { console: consoleStack, api: apiStack, stateful: statefulStack } = buildTestApp();
const template = Template.fromStack(consoleStack);

describe('the console stack', () => {
  it('keeps the files in a private, encrypted, TLS-only bucket that only the distribution reads (origin access control)', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'site/' }),
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('routes /api/* to the HTTP API on the same origin, uncached, with every viewer header but Host', () => {
    const distribution = template.findResources('AWS::CloudFront::Distribution');
    const config = Object.values(distribution)[0]!.Properties.DistributionConfig;
    const api = config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(api).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
      ViewerProtocolPolicy: 'https-only',
    });
    const origin = config.Origins.find((o: { Id: string }) => o.Id === api.TargetOriginId);
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
    expect(JSON.stringify(origin.DomainName)).toContain(apiStack.getLogicalId(apiStack.api.node.defaultChild as never));
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
  });

  it("sends the API the viewer's address, and the origin secret that makes the API believe it (by CloudFormation's reference, not in the template)", () => {
    const config = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const api = config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    const origin = config.Origins.find((o: { Id: string }) => o.Id === api.TargetOriginId);
    expect(origin.OriginCustomHeaders).toHaveLength(1);
    const [header] = origin.OriginCustomHeaders;
    expect(header.HeaderName).toBe(ORIGIN_SECRET_HEADER);
    const value = JSON.stringify(header.HeaderValue);
    expect(value).toContain('{{resolve:secretsmanager:');
    expect(value).toContain(statefulStack.getLogicalId(statefulStack.originSecret.node.defaultChild as never));

    // Any other behaviour to the API's origin would send the secret beside a viewer address the viewer chose.
    const toApiOrigin = [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter(
      (b: { TargetOriginId: string }) => b.TargetOriginId === api.TargetOriginId,
    );
    expect(toApiOrigin).toEqual([api]);
    expect(api.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: expect.anything() }]);
    const functions = template.findResources('AWS::CloudFront::Function');
    const [logicalId] = api.FunctionAssociations[0].FunctionARN['Fn::GetAtt'];
    const code: string = functions[logicalId]!.Properties.FunctionCode;
    expect(code).toBe(viewerAddressFunction);
    // The function as CloudFront runs it: a viewer's own header of that name is replaced.
    const handler = new Function(`${code}; return handler;`)() as (event: unknown) => { headers: Record<string, { value: string }> };
    const request = { uri: '/api/auth/login', headers: { [VIEWER_ADDRESS_HEADER]: { value: '10.0.0.1' }, host: { value: 'd1.cloudfront.net' } } };
    const passed = handler({ viewer: { ip: '2001:db8::7' }, request });
    expect(passed.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: '2001:db8::7' });
    expect(passed.headers['host']).toEqual({ value: 'd1.cloudfront.net' });
  });

  it('sends the version of the origin secret that originSecretVersionId names, so that a deploy takes a new value to CloudFront', () => {
    const pinned = buildTestApp({ context: { originSecretVersionId: 'a1b2c3d4-version' } });
    const config = Object.values(Template.fromStack(pinned.console).findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const [origin] = config.Origins.filter((o: { OriginCustomHeaders?: unknown }) => o.OriginCustomHeaders);
    const value = JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue);
    expect(value).toContain('{{resolve:secretsmanager:');
    expect(value).toContain(':SecretString:::a1b2c3d4-version}}');
  });

  it('answers with a CSP, HSTS, no framing and no sniffing, on the console and on the API', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: { ContentSecurityPolicy: Match.stringLikeRegexp("frame-ancestors 'none'"), Override: true },
          StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Preload: true, Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentTypeOptions: { Override: true },
        },
      },
    });
    const config = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const policies = [config.DefaultCacheBehavior, ...config.CacheBehaviors].map((b: { ResponseHeadersPolicyId: unknown }) =>
      JSON.stringify(b.ResponseHeadersPolicyId),
    );
    expect(new Set(policies).size).toBe(1);
  });

  it("lets the page call a hosted sign-in's token endpoint, and refuses at synth one that could not work", () => {
    const cspOf = (stack: ConsoleStack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0]!.Properties.ResponseHeadersPolicyConfig
        .SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy as string;
    expect(cspOf(consoleStack)).toContain("connect-src 'self';");
    const pool = { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf', audiences: ['client'] };
    const domain = 'https://acme.auth.eu-west-1.amazoncognito.com';
    const hosted = buildTestApp({
      context: {
        publicAppUrl: 'https://console.example.com',
        jwtExternalIssuers: JSON.stringify([{ ...pool, hostedSignIn: { name: 'Acme SSO', domain, clientId: 'client' } }]),
      },
    });
    expect(cspOf(hosted.console)).toContain(`connect-src 'self' ${domain};`);
    expect(() =>
      buildTestApp({ context: { jwtExternalIssuers: JSON.stringify([{ ...pool, hostedSignIn: { name: 'Acme SSO', domain, clientId: 'other' } }]) } }),
    ).toThrow(/context jwtExternalIssuers: 0\.hostedSignIn\.clientId: must be one of the audiences/);
  });

  it('serves index.html for page paths, files by their paths', () => {
    const fn = Object.values(template.findResources('AWS::CloudFront::Function'))[0]!;
    const handler = new Function(`${fn.Properties.FunctionCode}; return handler;`)() as (e: { request: { uri: string } }) => { uri: string };
    const uri = (path: string) => handler({ request: { uri: path } }).uri;
    expect(uri('/')).toBe('/index.html');
    expect(uri('/traces/trace-1')).toBe('/index.html');
    expect(uri('/reset-password')).toBe('/index.html');
    expect(uri('/assets/index-abc.js')).toBe('/assets/index-abc.js');
    expect(uri('/favicon.ico')).toBe('/favicon.ico');
  });

  it('outputs ConsoleUrl', () => {
    template.hasOutput('ConsoleUrl', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.anyValue(), 'DomainName'] }]] } });
  });

  it('builds the console at synth on this machine, without Docker (local bundling)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'aos-console-asset-'));
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'console/scripts/build.ts', out], { stdio: 'pipe' });
      const files = await readdir(out, { recursive: true });
      expect(files).toContain('index.html');
      expect(files.some((f) => /^assets\/index-[\w-]+\.js$/.test(f))).toBe(true);
      expect(files).not.toContain('build-inputs.json');
      expect(await readFile(join(out, 'index.html'), 'utf8')).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);
});
