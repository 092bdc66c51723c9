import { describe, expect, it } from 'vitest';
import { type ApiKeyDeps, authenticateApiKey } from '#shared/domain/accounts/api-key-service.ts';
import { apiKeySecretMatches, issueApiKey, newApiKeyId, parseApiKey } from '#shared/domain/accounts/api-keys.ts';
import { hashPassword, verifyPassword } from '#shared/domain/accounts/passwords.ts';
import type { ApiKeyRecord } from '#shared/domain/accounts/ports.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';

const SEED = 'unit-test-seed-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

describe('password hashing', () => {
  it('stores scrypt N=2^17 r=8 p=1 with its parameters and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$17\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
  });

  it('refuses hashes weaker than the minimum cost and malformed hashes', async () => {
    const stored = await hashPassword('password-1');
    expect(await verifyPassword('password-1', stored.replace('scrypt$17$', 'scrypt$10$'))).toBe(false);
    expect(await verifyPassword('password-1', 'plain')).toBe(false);
  });
});

describe('API keys', async () => {
  const { apiKeyPepper } = await signingMaterialFromSeed(SEED);

  it('have the documented shape, parse back and verify against the keyed hash only', () => {
    const issued = issueApiKey(newApiKeyId(), apiKeyPepper);
    expect(issued.key).toMatch(/^aos_live_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/);
    const parsed = parseApiKey(issued.key);
    expect(parsed?.keyId).toBe(issued.keyId);
    expect(issued.secretHash).not.toContain(parsed!.secret);
    expect(apiKeySecretMatches(parsed!.secret, issued.secretHash, apiKeyPepper)).toBe(true);
    expect(apiKeySecretMatches(parsed!.secret, issued.secretHash, Buffer.alloc(32))).toBe(false);
  });

  it('reject a mistyped key by its checksum', () => {
    const { key } = issueApiKey(newApiKeyId(), apiKeyPepper);
    const i = key.length - 10;
    const typo = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(parseApiKey(typo)).toBeUndefined();
    expect(parseApiKey(key.slice(0, -1))).toBeUndefined();
    expect(parseApiKey('aos_live_')).toBeUndefined();
  });

  it('issue a new random secret on each rotation', () => {
    const id = newApiKeyId();
    expect(issueApiKey(id, apiKeyPepper).key).not.toBe(issueApiKey(id, apiKeyPepper).key);
  });
});

describe('API key authentication', async () => {
  const signing = await signingMaterialFromSeed(SEED);
  const now = new Date('2026-03-01T12:00:00Z');
  const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();

  async function authenticate(lastUsedAt: string | null) {
    const issued = issueApiKey(newApiKeyId(), signing.apiKeyPepper);
    const record = { id: issued.keyId, tenantId: 'tnt_1', secretHash: issued.secretHash, status: 'active', lastUsedAt } as ApiKeyRecord;
    const touches: Array<{ at: Date; staleBefore: Date }> = [];
    const apiKeys = { get: async () => record, touchLastUsed: async (_id: string, at: Date, staleBefore: Date) => void touches.push({ at, staleBefore }) };
    const deps = { apiKeys, clock: { now: () => now }, signing: async () => signing } as unknown as ApiKeyDeps;
    expect(await authenticateApiKey(issued.key, deps)).toEqual({ tenantId: 'tnt_1', keyId: issued.keyId });
    return touches;
  }

  it('records the use of a key not used in the last minute', async () => {
    expect(await authenticate(null)).toEqual([{ at: now, staleBefore: new Date(secondsAgo(60)) }]);
    expect(await authenticate(secondsAgo(61))).toHaveLength(1);
  });

  it('writes nothing for a key used within the last minute (a failed conditional write still costs a unit)', async () => {
    expect(await authenticate(secondsAgo(59))).toEqual([]);
  });
});

describe('signing material', () => {
  it('is derived deterministically from the seed, with independent JWT key and pepper', async () => {
    const a = await signingMaterialFromSeed(SEED);
    const b = await signingMaterialFromSeed(SEED);
    const c = await signingMaterialFromSeed(SEED.replace('a', 'b'));
    expect(a.kid).toBe(b.kid);
    expect(a.publicJwk).toEqual(b.publicJwk);
    expect(a.apiKeyPepper.equals(b.apiKeyPepper)).toBe(true);
    expect(c.kid).not.toBe(a.kid);
    expect(a.publicJwk).not.toHaveProperty('d');
    expect(a.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('refuses a short seed', async () => {
    await expect(signingMaterialFromSeed('short')).rejects.toThrow(/at least 32/);
  });
});
