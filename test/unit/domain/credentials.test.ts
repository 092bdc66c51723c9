import { describe, expect, it } from 'vitest';
import { apiKeySecretMatches, issueApiKey, newApiKeyId, parseApiKey } from '../../../shared/domain/accounts/api-keys.ts';
import { hashPassword, verifyPassword } from '../../../shared/domain/accounts/passwords.ts';
import { signingMaterialFromSeed } from '../../../shared/domain/accounts/signing-keys.ts';

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
