import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { AwsCallError } from '../../../shared/adapters/aws-call.ts';
import { getSecretString } from '../../../shared/adapters/secrets-manager.ts';
import { signingMaterialLoader } from '../../../shared/adapters/signing.ts';
import { ServiceUnavailableError } from '../../../shared/domain/errors.ts';
import { CREDENTIALS, expectSameRequest, fakeAwsService, verifySignature, type Answer, type Received } from '../../support/fake-aws.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:aos-signing-seed-AbCdEf';
const SEED = 'a-signing-seed-of-more-than-thirty-two-characters';
const SIGNING = { service: 'secretsmanager', region: 'eu-west-1' };

const secretAnswer = (secretString: string | undefined): Answer => ({
  status: 200,
  body: JSON.stringify({ ARN, Name: 'aos-signing-seed', VersionId: 'v1', SecretString: secretString, VersionStages: ['AWSCURRENT'], CreatedDate: 1.7e9 }),
});
const refusal = (status: number, type: string, message: string): Answer => ({ status, body: JSON.stringify({ __type: type, message }) });

const fast = { credentials: CREDENTIALS, baseDelayMs: 1, timeoutMs: 2000 };

describe('getSecretString (GetSecretValue over SigV4)', () => {
  const fake = fakeAwsService('application/x-amz-json-1.1');

  it("sends what the SDK's Secrets Manager client sends, signed, and reads the secret string", async () => {
    fake.answers = [secretAnswer(SEED)];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).resolves.toBe(SEED);
    const sdk = new SecretsManagerClient({ region: 'eu-west-1', endpoint: fake.endpoint.href, credentials: CREDENTIALS });
    await expect(sdk.send(new GetSecretValueCommand({ SecretId: ARN }))).resolves.toMatchObject({ SecretString: SEED });

    const [ours, theirs] = fake.received;
    expectSameRequest(ours!, theirs!, { headers: ['content-type', 'x-amz-target', 'x-amz-security-token'], scope: /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request$/ });
    const signed = (r: Received) => /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))![1]!.split(';');
    expect(signed(ours!)).toEqual(['content-type', 'host', 'x-amz-date', 'x-amz-security-token', 'x-amz-target']);
    await verifySignature(ours!, SIGNING);
  });

  it("addresses the secret's region in its partition by default", async () => {
    const urls: string[] = [];
    const recordingFetch: typeof fetch = async (url) => {
      urls.push(String(url));
      return new Response(JSON.stringify({ SecretString: SEED }));
    };
    for (const arn of [ARN, 'arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:s', 'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:s']) {
      await getSecretString(arn, { ...fast, fetch: recordingFetch });
    }
    expect(urls).toEqual([
      'https://secretsmanager.eu-west-1.amazonaws.com/',
      'https://secretsmanager.cn-north-1.amazonaws.com.cn/',
      'https://secretsmanager.us-gov-west-1.amazonaws.com/',
    ]);
  });

  it('refuses what is not a secret ARN without asking', async () => {
    for (const arn of ['aos-signing-seed', 'arn:aws:ssm:eu-west-1:123456789012:parameter/x', 'arn:aws:secretsmanager:eu-west-1:1234:secret:x']) {
      await expect(getSecretString(arn, { ...fast, endpoint: fake.endpoint })).rejects.toThrow(/not a Secrets Manager secret ARN/);
    }
    expect(fake.received).toEqual([]);
  });

  it('names the refusal and does not retry one that cannot change (a missing secret, no permission)', async () => {
    for (const [type, message] of [
      ['ResourceNotFoundException', "Secrets Manager can't find the specified secret."],
      ['AccessDeniedException', 'User is not authorized to perform: secretsmanager:GetSecretValue'],
    ] as const) {
      fake.received.length = 0;
      fake.answers = [refusal(400, type, message)];
      const error = await getSecretString(ARN, { ...fast, endpoint: fake.endpoint }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AwsCallError);
      expect((error as Error).message).toBe(`Secrets Manager refused GetSecretValue (400 ${type}): ${message}`);
      expect(fake.received).toHaveLength(1);
    }
    // The SDK client reads the same answer as the same exception.
    fake.answers = [refusal(400, 'ResourceNotFoundException', 'gone')];
    const sdk = new SecretsManagerClient({ region: 'eu-west-1', endpoint: fake.endpoint.href, credentials: CREDENTIALS });
    await expect(sdk.send(new GetSecretValueCommand({ SecretId: ARN }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('takes a namespaced __type, or the error-type header when the body names none', async () => {
    fake.answers = [refusal(400, 'com.amazonaws.secretsmanager#DecryptionFailure', 'KMS refused')];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).rejects.toThrow('(400 DecryptionFailure): KMS refused');
    fake.answers = [{ status: 403, body: '<html>Forbidden</html>', headers: { 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/' } }];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).rejects.toThrow('(403 UnrecognizedClientException)');
  });

  it('retries throttling, server errors and timeouts, up to the attempts', async () => {
    fake.answers = [refusal(400, 'ThrottlingException', 'Rate exceeded'), refusal(500, 'InternalServiceError', 'oops'), secretAnswer(SEED)];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).resolves.toBe(SEED);
    expect(fake.received).toHaveLength(3);

    fake.received.length = 0;
    fake.answers = ['hang', secretAnswer(SEED)];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint, timeoutMs: 100 })).resolves.toBe(SEED);
    expect(fake.received).toHaveLength(2);

    fake.received.length = 0;
    fake.answers = [refusal(503, 'ServiceUnavailable', 'down')];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint, attempts: 4 })).rejects.toThrow('(503 ServiceUnavailable): down');
    expect(fake.received).toHaveLength(4);
  });

  it('gives up on an unreachable Secrets Manager with a retryable error carrying the cause', async () => {
    let calls = 0;
    const unreachable: typeof fetch = async () => {
      calls++;
      throw new TypeError('fetch failed');
    };
    const error = await getSecretString(ARN, { ...fast, fetch: unreachable }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsCallError);
    expect(error).toMatchObject({ retryable: true, message: 'Secrets Manager could not be reached (TypeError) for GetSecretValue' });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(calls).toBe(3);
  });

  it('refuses a secret without a string value (binary only, or empty), and an answer that is not JSON, without retrying', async () => {
    for (const answer of [secretAnswer(undefined), secretAnswer('')]) {
      fake.answers = [answer];
      await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).rejects.toThrow(`the secret ${ARN} has no string value`);
    }
    fake.received.length = 0;
    fake.answers = [{ status: 200, body: 'not json' }];
    await expect(getSecretString(ARN, { ...fast, endpoint: fake.endpoint })).rejects.toMatchObject({ retryable: false, message: 'Secrets Manager answered GetSecretValue with a body that is not a JSON object' });
    expect(fake.received).toHaveLength(1);
  });

  it('reads credentials from the environment (the function role) by default', async () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_SESSION_TOKEN: CREDENTIALS.sessionToken });
      fake.answers = [secretAnswer(SEED)];
      await expect(getSecretString(ARN, { endpoint: fake.endpoint })).resolves.toBe(SEED);
      expect(fake.received[0]!.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
      await verifySignature(fake.received[0]!, SIGNING);
    } finally {
      process.env = saved;
    }
  });
});

describe('getSecretString without credentials', () => {
  it('fails at once, not retryable and without calling Secrets Manager, when there are no credentials to sign with', async () => {
    const calls: unknown[] = [];
    const noCredentials = () => Promise.reject(new Error('no AWS_ACCESS_KEY_ID in the environment'));
    const failure = getSecretString(ARN, { ...fast, credentials: noCredentials, fetch: (...args) => (calls.push(args), Promise.reject(new Error('unexpected call'))) });
    await expect(failure).rejects.toMatchObject({ name: 'AwsCallError', retryable: false, message: 'no AWS credentials to sign GetSecretValue with' });
    await expect(failure).rejects.toBeInstanceOf(AwsCallError);
    expect(calls).toEqual([]);
  });
});

describe('the signing seed from Secrets Manager (signingMaterialLoader)', () => {
  it('answers 503 while Secrets Manager cannot be read, and reads it again on the next request', async () => {
    const answers: (() => Promise<string>)[] = [
      () => Promise.reject(new AwsCallError('Secrets Manager refused GetSecretValue (400 ThrottlingException)', true)),
      () => Promise.resolve(SEED),
    ];
    const load = signingMaterialLoader({ secretArn: ARN }, () => answers.shift()!());
    await expect(load()).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(load()).resolves.toMatchObject({ kid: expect.any(String) });
    expect(answers).toEqual([]);
  });

  it('keeps a refusal that cannot change (no permission, no such secret) a fault, not a 503', async () => {
    const refused = new AwsCallError('Secrets Manager refused GetSecretValue (400 AccessDeniedException)', false);
    const load = signingMaterialLoader({ secretArn: ARN }, () => Promise.reject(refused));
    await expect(load()).rejects.toBe(refused);
  });
});
