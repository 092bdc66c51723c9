import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AwsServiceError, callAws, type AwsApi } from '../../../shared/adapters/aws-call.ts';
import { CREDENTIALS, fakeAwsService, type Received } from '../../support/fake-aws.ts';

const REGION = 'eu-west-1';
const api = (protocol: AwsApi['protocol']): AwsApi => ({ name: 'Secrets Manager', signingName: 'secretsmanager', endpointPrefix: 'secretsmanager', endpointEnvId: 'SECRETS_MANAGER', protocol });
const getSecretValue = {
  name: 'GetSecretValue',
  path: '/',
  headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
  body: JSON.stringify({ SecretId: 's' }),
};
const signedHeaders = (r: Received) => /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))![1]!.split(';');

describe('callAws', () => {
  const fake = fakeAwsService('application/x-amz-json-1.1');
  const ok = { status: 200, body: JSON.stringify({ SecretString: 'x' }) };

  it("sends the Lambda invocation's X-Ray trace header unsigned, as the SDK client does, and none outside Lambda", async () => {
    fake.answers = [ok];
    const trace = { AWS_LAMBDA_FUNCTION_NAME: 'aos-fn', _X_AMZN_TRACE_ID: 'Root=1-6740a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1' };
    await callAws(api('json-rpc'), getSecretValue, { endpoint: fake.endpoint, credentials: CREDENTIALS, env: { AWS_REGION: REGION, ...trace } });
    await callAws(api('json-rpc'), getSecretValue, { endpoint: fake.endpoint, credentials: CREDENTIALS, env: { AWS_REGION: REGION, _X_AMZN_TRACE_ID: trace._X_AMZN_TRACE_ID } });
    Object.assign(process.env, trace);
    try {
      await new SecretsManagerClient({ region: REGION, endpoint: fake.endpoint.href, credentials: CREDENTIALS }).send(new GetSecretValueCommand({ SecretId: 's' }));
    } finally {
      for (const name of Object.keys(trace)) delete process.env[name];
    }
    const [inLambda, outside, sdk] = fake.received;
    expect(inLambda!.headers['x-amzn-trace-id']).toBe(trace._X_AMZN_TRACE_ID);
    expect(sdk!.headers['x-amzn-trace-id']).toBe(trace._X_AMZN_TRACE_ID);
    expect(signedHeaders(inLambda!)).not.toContain('x-amzn-trace-id');
    expect(outside!.headers['x-amzn-trace-id']).toBeUndefined();
  });

  it("puts the operation's path after the endpoint's own path", async () => {
    fake.answers = [ok];
    await callAws(api('rest-json'), { ...getSecretValue, path: '/model/a%3Ab/converse' }, { endpoint: new URL('proxy/bedrock', fake.endpoint), credentials: CREDENTIALS, env: { AWS_REGION: REGION } });
    expect(fake.received[0]!.path).toBe('/proxy/bedrock/model/a%3Ab/converse');
  });

  it("reads the error code where the protocol puts it first, as the SDK's own loaders do", async () => {
    const both = { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.x#FromBody', message: 'no' }), headers: { 'x-amzn-errortype': 'FromHeader:http://internal.amazon.com/' } };
    fake.answers = [both];
    const options = { endpoint: fake.endpoint, credentials: CREDENTIALS, env: { AWS_REGION: REGION } };
    await expect(callAws(api('json-rpc'), getSecretValue, options)).rejects.toMatchObject({ code: 'FromBody' });
    await expect(callAws(api('rest-json'), getSecretValue, options)).rejects.toMatchObject({ code: 'FromHeader' });
    fake.answers = [{ status: 400, body: JSON.stringify({ Code: 'CapitalisedCode', Message: 'no' }) }];
    await expect(callAws(api('rest-json'), getSecretValue, options)).rejects.toMatchObject({ code: 'CapitalisedCode', message: 'Secrets Manager refused GetSecretValue (400 CapitalisedCode): no' });
  });

  it("retries throttling and transient answers, as the SDK's classification does, and no other refusal", () => {
    const retryable = (code: string, status: number) => new AwsServiceError('x', code, status).retryable;
    expect([retryable('ThrottlingException', 400), retryable('Anything', 429), retryable('InternalError', 500), retryable('ServiceUnavailable', 503), retryable('RequestTimeout', 400)]).toEqual([true, true, true, true, true]);
    expect([retryable('ValidationException', 400), retryable('AccessDeniedException', 403), retryable('NotImplemented', 501)]).toEqual([false, false, false]);
    expect(new AwsServiceError('x', 'ThrottlingException', 400).throttling).toBe(true);
  });

  describe('between attempts', () => {
    afterEach(() => vi.restoreAllMocks());
    const refusal = (status: number, type: string) => ({ status, body: JSON.stringify({ __type: type, message: 'no' }) });

    it('stops waiting when its signal aborts, and throws the last refusal', async () => {
      fake.answers = [refusal(400, 'ThrottlingException')];
      const options = { endpoint: fake.endpoint, credentials: CREDENTIALS, env: { AWS_REGION: REGION }, baseDelayMs: 60_000, signal: AbortSignal.timeout(200) };
      vi.spyOn(Math, 'random').mockReturnValue(1);
      const started = performance.now();
      await expect(callAws(api('json-rpc'), getSecretValue, options)).rejects.toMatchObject({ code: 'ThrottlingException' });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(fake.received).toHaveLength(1);
    });
  });

  it('does not retry a fault of its own making: an invalid endpoint throws once, without a call', async () => {
    const calls: unknown[] = [];
    const failure = callAws(api('json-rpc'), getSecretValue, { credentials: CREDENTIALS, env: { AWS_REGION: REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER: 'not a url' }, fetch: async (...args) => (calls.push(args), new Response('{}')) });
    await expect(failure).rejects.toBeInstanceOf(TypeError);
    expect(calls).toEqual([]);
  });
});
