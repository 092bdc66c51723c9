import { TokenProviderError } from '@smithy/core/config';
import { afterEach, describe, expect, it } from 'vitest';
import { fromEnvSigningName, nodeProvider } from '../../infra/aws/lambda-token-providers.ts';

const KEY = 'AWS_BEARER_TOKEN_BEDROCK';
const saved = process.env[KEY];
afterEach(() => {
  if (saved === undefined) delete process.env[KEY];
  else process.env[KEY] = saved;
});

describe("the Lambda bundles' stand-in for @aws-sdk/token-providers", () => {
  it("reads a Bedrock API key from the signing name's environment variable, as the SDK's provider does", async () => {
    process.env[KEY] = 'bedrock-api-key-1';
    await expect(fromEnvSigningName({ signingName: 'bedrock' })()).resolves.toEqual({ token: 'bedrock-api-key-1' });
  });

  it('lets the chain go on when there is no key (or no signing name), and ends it without SSO', async () => {
    delete process.env[KEY];
    for (const provider of [fromEnvSigningName({ signingName: 'bedrock' }), fromEnvSigningName()]) {
      await expect(provider()).rejects.toBeInstanceOf(TokenProviderError);
      await expect(provider()).rejects.toMatchObject({ tryNextLink: true });
    }
    await expect(nodeProvider()()).rejects.toMatchObject({ name: 'TokenProviderError', tryNextLink: false, message: expect.stringContaining(KEY) });
  });
});
