import type { ScryptOptions } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { burnPasswordCheck, hashPassword, verifyPassword } from '#shared/domain/accounts/passwords.ts';

/**
 * The real scrypt, counting the hashes in progress at once, at a cost of 2^10 instead of the stored
 * 2^17 (every hash here goes through it, so they still verify), to keep the test quick.
 */
const hashes = vi.hoisted(() => ({ inProgress: 0, most: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const scrypt = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions, done: (err: Error | null, key: Buffer) => void) => {
    hashes.most = Math.max(hashes.most, ++hashes.inProgress);
    crypto.scrypt(password, salt, keyLength, { ...options, N: 2 ** 10 }, (err, key) => {
      hashes.inProgress--;
      done(err, key);
    });
  };
  return { ...crypto, default: { ...crypto, scrypt }, scrypt };
});

describe('password hashing in one process', () => {
  it('runs at most two hashes at once, whatever asks for them, and answers every one', async () => {
    const stored = await hashPassword('correct horse battery');
    hashes.most = 0;
    const results = await Promise.all([
      hashPassword('one'),
      hashPassword('two'),
      verifyPassword('correct horse battery', stored),
      verifyPassword('wrong', stored),
      burnPasswordCheck('unknown account'),
    ]);
    expect(hashes.most).toBe(2);
    expect(hashes.inProgress).toBe(0);
    expect(results.slice(2, 4)).toEqual([true, false]);
    expect(await verifyPassword('two', results[1] as string)).toBe(true);
  });
});
