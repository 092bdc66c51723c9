import { afterEach, describe, expect, it, vi } from 'vitest';
import { callAws, type AwsApi } from '../../../shared/adapters/aws-call.ts';
import { CREDENTIALS } from '../../support/fake-aws.ts';

/** The waits between attempts, recorded instead of slept. */
const waits = vi.hoisted(() => [] as number[]);
vi.mock('node:timers/promises', () => ({ setTimeout: async (ms: number) => void waits.push(ms) }));

const api: AwsApi = { name: 'SQS', signingName: 'sqs', endpointPrefix: 'sqs', endpointEnvId: 'SQS', protocol: 'json-rpc' };
const operation = { name: 'SendMessageBatch', path: '/', headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{}' };
const answering = (status: number, type: string): typeof fetch => async () => new Response(JSON.stringify({ __type: type, message: 'no' }), { status });

describe('callAws backoff', () => {
  afterEach(() => {
    waits.length = 0;
    vi.restoreAllMocks();
  });

  it('doubles its wait per attempt, up to baseDelayMs · 2^(n-1) at random, and waits five times longer after throttling, as the SDK does', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const options = { credentials: CREDENTIALS, env: { AWS_REGION: 'us-east-1' }, attempts: 3, baseDelayMs: 100 };
    await expect(callAws(api, operation, { ...options, fetch: answering(503, 'ServiceUnavailable') })).rejects.toMatchObject({ code: 'ServiceUnavailable' });
    await expect(callAws(api, operation, { ...options, fetch: answering(400, 'ThrottlingException') })).rejects.toMatchObject({ code: 'ThrottlingException' });
    expect(waits).toEqual([100, 200, 500, 1000]);
  });

  it('does not wait or retry after a refusal that cannot change', async () => {
    await expect(callAws(api, operation, { credentials: CREDENTIALS, env: { AWS_REGION: 'us-east-1' }, fetch: answering(400, 'InvalidParameterValue') })).rejects.toMatchObject({ retryable: false });
    expect(waits).toEqual([]);
  });
});
