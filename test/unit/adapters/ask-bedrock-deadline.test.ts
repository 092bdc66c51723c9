import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bedrockTranslator } from '#shared/adapters/ask-bedrock.ts';
import { clientSettings } from '#shared/adapters/aws-clients.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';

/** A Bedrock endpoint that takes every request and never answers: the real SDK client over HTTP, not a mock. */
let silent: Server;
let endpoint: string;
beforeAll(async () => {
  silent = createServer(() => {});
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  silent.closeAllConnections();
  silent.close();
});

it('gives up on a Bedrock that does not answer once its deadline passes, as 503 to ask again, whatever the per-attempt timeout', async () => {
  const client = new BedrockRuntimeClient({
    ...clientSettings({ attempts: 2, attemptTimeoutMs: 60_000 }),
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const asked = bedrockTranslator('amazon.nova-lite-v1:0', client, 300).translate('failed runs', {
    now: new Date(),
    agents: [],
    models: [],
    tools: [],
  });
  await expect(asked).rejects.toBeInstanceOf(ServiceUnavailableError);
});
