import { AccessDeniedException, BedrockRuntimeClient, ConverseCommand, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { describe, expect, it } from 'vitest';
import { AwsCallError, AwsServiceError } from '../../../shared/adapters/aws-call.ts';
import { bedrockConverse, type ConverseRequest } from '../../../shared/adapters/bedrock-converse.ts';
import { CREDENTIALS, expectSameRequest, fakeAwsService, verifySignature, type Answer, type FakeAwsService } from '../../support/fake-aws.ts';

const REGION = 'us-east-1';
const MODELS = ['amazon.nova-micro-v1:0', 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0'];
const request: ConverseRequest = {
  system: 'You judge traces. Answer JSON.',
  messages: [
    { role: 'user', content: [{ text: 'Evaluate "this" — ünïcode ✓' }] },
    { role: 'assistant', content: [{ text: '{"score": 2}' }] },
    { role: 'user', content: [{ text: 'Not valid, again.' }] },
  ],
  maxTokens: 400,
  temperature: 0,
};
const ok = (text: string, usage = { inputTokens: 900, outputTokens: 40, totalTokens: 940 }): Answer => ({
  status: 200,
  body: JSON.stringify({ output: { message: { role: 'assistant', content: [{ text: text.slice(0, 4) }, { text: text.slice(4) }] } }, stopReason: 'end_turn', usage, metrics: { latencyMs: 310 } }),
});
const refusal = (status: number, type: string, message: string): Answer => ({
  status,
  body: JSON.stringify({ message }),
  headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
});
const sdkClient = (fake: FakeAwsService) =>
  new BedrockRuntimeClient({ region: REGION, endpoint: fake.endpoint.href, credentials: CREDENTIALS, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
const sdkCommand = (modelId: string) =>
  new ConverseCommand({ modelId, system: [{ text: request.system }], messages: request.messages.map((m) => ({ role: m.role, content: m.content })), inferenceConfig: { maxTokens: 400, temperature: 0 } });
const noEnv = { AWS_REGION: REGION };

describe('bedrockConverse (Converse over SigV4)', () => {
  const fake = fakeAwsService('application/json');

  it("sends what the SDK's Bedrock Runtime client sends, signed, for a model id and an inference profile ARN, and reads text and tokens", async () => {
    const converse = bedrockConverse({ endpoint: fake.endpoint, credentials: CREDENTIALS, env: noEnv });
    for (const modelId of MODELS) {
      fake.received.length = 0;
      fake.answers = [ok('{"score": 0.1}')];
      await expect(converse(modelId, request)).resolves.toEqual({ text: '{"score": 0.1}', inputTokens: 900, outputTokens: 40 });
      await expect(sdkClient(fake).send(sdkCommand(modelId))).resolves.toMatchObject({ usage: { inputTokens: 900 } });
      const [ours, theirs] = fake.received;
      expect(ours!.path).toBe(`/model/${encodeURIComponent(modelId)}/converse`);
      expectSameRequest(ours!, theirs!, { headers: ['content-type', 'x-amz-security-token'], scope: /^AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request$/ });
      await verifySignature(ours!, { service: 'bedrock', region: REGION });
    }
  });

  it('uses a Bedrock API key from AWS_BEARER_TOKEN_BEDROCK instead of a signature, as the SDK client does', async () => {
    fake.answers = [ok('fine answer')];
    const converse = bedrockConverse({ endpoint: fake.endpoint, credentials: () => Promise.reject(new Error('not asked')), env: { ...noEnv, AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-example' } });
    await expect(converse(MODELS[0]!, request)).resolves.toMatchObject({ text: 'fine answer' });
    const saved = process.env.AWS_BEARER_TOKEN_BEDROCK;
    process.env.AWS_BEARER_TOKEN_BEDROCK = 'bedrock-api-key-example';
    try {
      await sdkClient(fake).send(sdkCommand(MODELS[0]!));
    } finally {
      if (saved === undefined) delete process.env.AWS_BEARER_TOKEN_BEDROCK;
      else process.env.AWS_BEARER_TOKEN_BEDROCK = saved;
    }
    const [ours, theirs] = fake.received;
    expect(ours!.headers.authorization).toBe('Bearer bedrock-api-key-example');
    expect(theirs!.headers.authorization).toBe(ours!.headers.authorization);
  });

  it('names the refusal by the error-type header, and it is retryable as the SDK would retry it', async () => {
    const converse = bedrockConverse({ endpoint: fake.endpoint, credentials: CREDENTIALS, env: noEnv, attempts: 1 });
    for (const [status, type, retryable, sdkClass] of [
      [429, 'ThrottlingException', true, ThrottlingException],
      [403, 'AccessDeniedException', false, AccessDeniedException],
    ] as const) {
      fake.answers = [refusal(status, type, 'no')];
      const error = await converse(MODELS[0]!, request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AwsServiceError);
      expect(error).toMatchObject({ code: type, status, retryable, message: `Bedrock Runtime refused Converse (${status} ${type}): no` });
      // The SDK client reads the same answer as the same exception.
      await expect(sdkClient(fake).send(sdkCommand(MODELS[0]!))).rejects.toBeInstanceOf(sdkClass);
    }
  });

  it('reads an answer without text or usage as empty', async () => {
    fake.answers = [{ status: 200, body: JSON.stringify({ output: { message: { role: 'assistant', content: [{ image: {} }, { text: 'x' }] } }, usage: { inputTokens: -1 } }) }];
    const converse = bedrockConverse({ endpoint: fake.endpoint, credentials: CREDENTIALS, env: noEnv });
    await expect(converse(MODELS[0]!, request)).resolves.toEqual({ text: 'x', inputTokens: 0, outputTokens: 0 });
    fake.answers = [{ status: 200, body: '' }];
    await expect(converse(MODELS[0]!, request)).resolves.toEqual({ text: '', inputTokens: 0, outputTokens: 0 });
  });
});

describe('bedrockConverse endpoints', () => {
  const recording = () => {
    const urls: string[] = [];
    const fetch: typeof globalThis.fetch = async (url) => {
      urls.push(String(url));
      return new Response(JSON.stringify({ output: { message: { content: [{ text: 'ok' }] } } }));
    };
    return { urls, fetch };
  };

  it("calls the function's region in its partition, or the SDK's endpoint variables when set (not empty)", async () => {
    const { urls, fetch } = recording();
    for (const env of [
      { AWS_REGION: 'eu-central-1' },
      { AWS_REGION: 'eu-central-1', AWS_ENDPOINT_URL_BEDROCK_RUNTIME: '', AWS_ENDPOINT_URL: '' },
      { AWS_REGION: 'cn-north-1' },
      { AWS_DEFAULT_REGION: 'us-west-2' },
      { AWS_REGION: 'eu-central-1', AWS_ENDPOINT_URL: 'http://localhost:4566' },
      { AWS_REGION: 'eu-central-1', AWS_ENDPOINT_URL: 'http://localhost:4566', AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'https://vpce-1.bedrock-runtime.eu-central-1.vpce.amazonaws.com' },
    ]) {
      await bedrockConverse({ credentials: CREDENTIALS, env, fetch })('amazon.nova-micro-v1:0', request);
    }
    expect(urls).toEqual([
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse',
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse',
      'https://bedrock-runtime.cn-north-1.amazonaws.com.cn/model/amazon.nova-micro-v1%3A0/converse',
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse',
      'http://localhost:4566/model/amazon.nova-micro-v1%3A0/converse',
      'https://vpce-1.bedrock-runtime.eu-central-1.vpce.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse',
    ]);
  });

  it('refuses at once, without a call, when it has no region or no credentials', async () => {
    const { urls, fetch } = recording();
    await expect(bedrockConverse({ credentials: CREDENTIALS, env: {}, fetch })('m', request)).rejects.toMatchObject({ retryable: false, message: 'no AWS region to call Bedrock Runtime in' });
    const noCredentials = () => Promise.reject(new Error('no AWS_ACCESS_KEY_ID'));
    const failure = bedrockConverse({ credentials: noCredentials, env: noEnv, fetch })('m', request);
    await expect(failure).rejects.toBeInstanceOf(AwsCallError);
    await expect(failure).rejects.toMatchObject({ retryable: false, message: 'no AWS credentials to sign Converse with' });
    expect(urls).toEqual([]);
  });
});
