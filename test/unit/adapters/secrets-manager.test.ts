import {
  DecryptionFailure,
  GetSecretValueCommand,
  InternalServiceError,
  ResourceNotFoundException,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { getCurrentAndPreviousStrings, getSecretString, SecretValueError, secretLoader } from '#shared/adapters/secrets-manager.ts';
import { signingMaterialLoader } from '#shared/adapters/signing.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import { logger } from '#shared/observability/logger.ts';

const secrets = mockClient(SecretsManagerClient);
beforeEach(() => secrets.reset());

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:aos-signing-seed-AbCdEf';
const SEED = 'a-signing-seed-of-sixty-four-characters-0123456789abcdefghijklmn';
const metadata = { $metadata: {} };
/** Lets a read in the background settle: its fake settles within microtasks, before the next macrotask (only Date is faked). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('Secrets Manager (GetSecretValue)', () => {
  it("reads the secret's string, in the secret's own region, under the route deadline", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: SEED });
    expect(await getSecretString(ARN)).toBe(SEED);
    expect(secrets).toHaveReceivedCommandExactlyOnceWith(GetSecretValueCommand, { SecretId: ARN });
    const call = secrets.commandCalls(GetSecretValueCommand)[0]!;
    expect(await (call.thisValue as SecretsManagerClient).config.region()).toBe('eu-west-1');
    expect((call.args as unknown as [unknown, { abortSignal?: AbortSignal }])[1].abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('refuses what is not a secret ARN, and a secret with no string value', async () => {
    await expect(getSecretString('aos-signing-seed')).rejects.toBeInstanceOf(SecretValueError);
    expect(secrets).not.toHaveReceivedAnyCommand();
    secrets.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1]) });
    await expect(getSecretString(ARN)).rejects.toBeInstanceOf(SecretValueError);
  });
});

describe("a secret's current and previous values (the origin secret, re-keyed while its distribution still sends the old one)", () => {
  const previousStage = { SecretId: ARN, VersionStage: 'AWSPREVIOUS' };

  it('reads both stages, the current first, within one deadline, and only the current one when the secret was never re-keyed', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: 'new-value' });
    secrets.on(GetSecretValueCommand, previousStage).resolves({ SecretString: 'old-value' });
    expect(await getCurrentAndPreviousStrings(ARN)).toEqual(['new-value', 'old-value']);
    const calls = secrets.commandCalls(GetSecretValueCommand);
    expect(calls.map((call) => call.args[0].input.VersionStage)).toEqual([undefined, 'AWSPREVIOUS']);
    // Within the one deadline a route gives a call, not one each.
    const [first, second] = calls.map((call) => (call.args as unknown as [unknown, { abortSignal?: AbortSignal }])[1].abortSignal);
    expect(first).toBeInstanceOf(AbortSignal);
    expect(second).toBe(first);
    secrets.on(GetSecretValueCommand, previousStage).rejects(new ResourceNotFoundException({ message: 'no AWSPREVIOUS version', ...metadata }));
    expect(await getCurrentAndPreviousStrings(ARN)).toEqual(['new-value']);
  });

  it('fails the whole read when the previous stage cannot be read for another reason (a loader holding no value yet answers 503)', async () => {
    const outage = new InternalServiceError({ message: 'internal', ...metadata });
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: 'new-value' });
    secrets.on(GetSecretValueCommand, previousStage).rejects(outage);
    await expect(getCurrentAndPreviousStrings(ARN)).rejects.toBe(outage);
    await expect(secretLoader({ secretArn: ARN }, getCurrentAndPreviousStrings)()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await secretLoader({ value: ['given'], secretArn: ARN }, getCurrentAndPreviousStrings)()).toEqual(['given']);
  });
});

describe('the signing material loader on Secrets Manager', () => {
  const loader = () => signingMaterialLoader({ secretArn: ARN });

  it('derives the keys from the seed, reading it once per process', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: SEED });
    const load = loader();
    const [a, b] = await Promise.all([load(), load()]);
    expect(a.kid).toBe(b.kid);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });

  it('answers 503 while Secrets Manager is throttling, failing or out of reach, and reads again on the next request', async () => {
    const failures = [
      new InternalServiceError({ message: 'internal', ...metadata }),
      new SecretsManagerServiceException({ name: 'ThrottlingException', $fault: 'client', message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }),
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    ];
    for (const failure of failures) {
      secrets.reset();
      secrets.on(GetSecretValueCommand).rejectsOnce(failure).resolves({ SecretString: SEED });
      const load = loader();
      const err = await load().catch((e: unknown) => e);
      expect(err, String(failure)).toBeInstanceOf(ServiceUnavailableError);
      expect((err as Error).cause).toBe(failure);
      await expect(load()).resolves.toMatchObject({ kid: expect.any(String) });
    }
  });

  it('lets a refusal that no retry changes surface as a fault (500): a missing secret, a key it cannot decrypt with', async () => {
    for (const refusal of [new ResourceNotFoundException({ message: 'not found', ...metadata }), new DecryptionFailure({ message: 'kms', ...metadata })]) {
      secrets.reset();
      secrets.on(GetSecretValueCommand).rejects(refusal);
      await expect(loader()()).rejects.toBe(refusal);
    }
  });
});

describe("a secret loader (the console distribution's origin secret)", () => {
  it('gives the value it was given, reads a secret once per process, and gives nothing when neither is set', async () => {
    expect(await secretLoader({ value: SEED, secretArn: ARN })()).toBe(SEED);
    expect(await secretLoader({})()).toBeUndefined();
    expect(secrets).not.toHaveReceivedAnyCommand();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: SEED });
    const load = secretLoader({ secretArn: ARN });
    expect(await Promise.all([load(), load()])).toEqual([SEED, SEED]);
    expect(await load()).toBe(SEED);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });

  it('answers 503 while Secrets Manager is out of reach and reads again next time; a refusal stays a fault', async () => {
    const outage = new InternalServiceError({ message: 'internal', ...metadata });
    secrets.on(GetSecretValueCommand).rejectsOnce(outage).resolves({ SecretString: SEED });
    const load = secretLoader({ secretArn: ARN });
    await expect(load()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await load()).toBe(SEED);
    secrets.reset();
    const refusal = new ResourceNotFoundException({ message: 'not found', ...metadata });
    secrets.on(GetSecretValueCommand).rejects(refusal);
    await expect(secretLoader({ secretArn: ARN })()).rejects.toBe(refusal);
  });

  describe('on a clock of its own (Date only), its failures logged', () => {
    let warned: MockInstance<typeof logger.warn>;
    let failed: MockInstance<typeof logger.error>;
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'] });
      warned = vi.spyOn(logger, 'warn').mockImplementation(() => {});
      failed = vi.spyOn(logger, 'error').mockImplementation(() => {});
    });
    afterEach(() => {
      vi.useRealTimers();
      vi.restoreAllMocks();
    });

    it('reads the secret again once it is maxAgeMs old, serving the value it has meanwhile and when that read fails, which it logs', async () => {
      const outage = new InternalServiceError({ message: 'internal', ...metadata });
      const refusal = new ResourceNotFoundException({ message: 'not found', ...metadata });
      const answers: Array<string | Error> = ['first-value', 'second-value', outage, refusal, 'third-value'];
      const readSecret = vi.fn(async () => {
        const answer = answers.shift()!;
        if (answer instanceof Error) throw answer;
        return answer;
      });
      const load = secretLoader({ secretArn: ARN }, readSecret, { maxAgeMs: 60_000, retryAfterMs: 5_000, logAs: 'the test secret' });
      expect(await load()).toBe('first-value');
      vi.advanceTimersByTime(59_000);
      expect(await load()).toBe('first-value');
      expect(readSecret).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(1_000);
      expect(await load(), 'the old value while the new one is read').toBe('first-value');
      await settled();
      expect(await load()).toBe('second-value');
      expect(readSecret).toHaveBeenCalledTimes(2);

      // Each failed read leaves the value it has serving, logs, and asks nothing for retryAfterMs.
      for (const [error, logged] of [
        [outage, warned],
        [refusal, failed],
      ] as const) {
        vi.advanceTimersByTime(60_000);
        expect(await load()).toBe('second-value');
        await settled();
        expect(logged).toHaveBeenCalledTimes(1);
        // Names only: a message could quote the answer, which holds the secret.
        expect(logged.mock.calls[0]).toEqual([
          'the test secret not read again: serving the value read before',
          error === outage ? { error: 'unavailable', cause: 'InternalServiceError' } : { error: 'ResourceNotFoundException' },
        ]);
        const reads = readSecret.mock.calls.length;
        vi.advanceTimersByTime(4_000);
        expect(await load()).toBe('second-value');
        expect(readSecret).toHaveBeenCalledTimes(reads);
        logged.mockClear();
      }
      vi.advanceTimersByTime(5_000);
      expect(await load()).toBe('second-value');
      await settled();
      expect(await load()).toBe('third-value');
    });

    it('before any value was read, fails for retryAfterMs after a failed read without asking again, and logs the failure when named', async () => {
      const outage = new InternalServiceError({ message: 'internal', ...metadata });
      secrets.on(GetSecretValueCommand).rejectsOnce(outage).resolves({ SecretString: SEED });
      const load = secretLoader({ secretArn: ARN }, undefined, { maxAgeMs: 60_000, retryAfterMs: 5_000, logAs: 'the test secret' });
      await expect(load()).rejects.toBeInstanceOf(ServiceUnavailableError);
      vi.advanceTimersByTime(4_000);
      await expect(load()).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
      expect(warned.mock.calls).toEqual([['the test secret not read', { error: 'unavailable', cause: 'InternalServiceError' }]]);
      vi.advanceTimersByTime(1_000);
      expect(await load()).toBe(SEED);

      // A refusal is the deployment's fault: an error. A loader without a name (the signing seed's) leaves its failures to its caller.
      secrets.reset();
      secrets.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1]) });
      await expect(secretLoader({ secretArn: ARN }, undefined, { logAs: 'the test secret' })()).rejects.toBeInstanceOf(SecretValueError);
      expect(failed.mock.calls).toEqual([['the test secret not read', { error: 'SecretValueError' }]]);
      await expect(secretLoader({ secretArn: ARN })()).rejects.toBeInstanceOf(SecretValueError);
      expect([warned.mock.calls.length, failed.mock.calls.length]).toEqual([1, 1]);
    });
  });
});
