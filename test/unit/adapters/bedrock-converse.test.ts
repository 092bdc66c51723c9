import { AccessDeniedException, BedrockRuntimeClient, ConverseCommand, ModelNotReadyException, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { bedrockConverse, type ConverseRequest } from '#shared/adapters/bedrock-converse.ts';
import { judgeClient } from '#shared/adapters/judge-bedrock.ts';

const bedrock = mockClient(BedrockRuntimeClient);
beforeEach(() => bedrock.reset());

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
const metadata = { $metadata: {} };

describe('bedrockConverse (Bedrock Runtime Converse)', () => {
  it('sends the system prompt, the messages and the inference settings for a model id or an inference profile ARN, and reads text and tokens', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: '{"sc' }, { text: 'ore": 0.2}' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 900, outputTokens: 40, totalTokens: 940 },
      metrics: { latencyMs: 310 },
    });
    const converse = bedrockConverse(new BedrockRuntimeClient({}));
    for (const modelId of ['amazon.nova-micro-v1:0', 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0']) {
      expect(await converse(modelId, request)).toEqual({ text: '{"score": 0.2}', inputTokens: 900, outputTokens: 40 });
      expect(bedrock).toHaveReceivedCommandWith(ConverseCommand, {
        modelId,
        system: [{ text: request.system }],
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        inferenceConfig: { maxTokens: 400, temperature: 0 },
      });
    }
  });

  it('reads an answer without text or usage as empty', async () => {
    bedrock
      .on(ConverseCommand)
      .resolvesOnce({
        output: { message: { role: 'assistant', content: [{ image: { format: 'png', source: { bytes: new Uint8Array() } } }, { text: 'x' }] } },
        usage: { inputTokens: -1, outputTokens: 0, totalTokens: 0 },
      })
      .resolves({});
    const converse = bedrockConverse(new BedrockRuntimeClient({}));
    await expect(converse('m', request)).resolves.toEqual({ text: 'x', inputTokens: 0, outputTokens: 0 });
    await expect(converse('m', request)).resolves.toEqual({ text: '', inputTokens: 0, outputTokens: 0 });
  });

  it("lets Bedrock's refusals surface as the SDK's exceptions, for the caller to tell apart with instanceof", async () => {
    for (const refusal of [
      new ThrottlingException({ message: 'Too many requests', ...metadata }),
      new AccessDeniedException({ message: 'no access', ...metadata }),
    ]) {
      bedrock.reset();
      bedrock.on(ConverseCommand).rejects(refusal);
      await expect(bedrockConverse(new BedrockRuntimeClient({}))('m', request)).rejects.toBe(refusal);
    }
  });
});

describe("the judge's Bedrock client", () => {
  it('speaks HTTP/1.1 and retries a busy Bedrock three times with the jittered backoff, through the SDK retry strategy', async () => {
    bedrock.restore(); // the client's own configuration, not a mock
    const client = judgeClient();
    expect(client.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
    const strategy = await client.config.retryStrategy();
    expect(strategy).toBeInstanceOf(ConfiguredRetryStrategy);
    expect(await client.config.maxAttempts()).toBe(4);
    const delays = [1, 2, 3].map((attempt) =>
      (strategy as unknown as { computeNextBackoffDelay: (attempt: number) => number }).computeNextBackoffDelay(attempt),
    );
    expect(delays[0]).toBeGreaterThanOrEqual(250);
    expect(delays[0]).toBeLessThanOrEqual(500);
    expect(delays[2]).toBeGreaterThanOrEqual(1000);
    expect(delays[2]).toBeLessThanOrEqual(2000);
    // A model that is not ready yet is retryable by its model trait, as throttling is.
    expect(new ModelNotReadyException({ message: 'loading', ...metadata }).$retryable).toBeDefined();
    bedrock.reset();
  });
});
