import type { ScryptOptions } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { burnPasswordCheck, hashPassword, verifyPassword } from '#shared/domain/accounts/passwords.ts';

/**
 * The real scrypt, counting the hashes in progress at once, at a cost of 2^10 instead of the stored
 * 2^17 (every hash here goes through it, so they still verify), to keep the test quick.
 */
const hashes = vi.hoisted(() => ({ inProgress: 0, most: 0, started: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const scrypt = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions, done: (err: Error | null, key: Buffer) => void) => {
    hashes.started++;
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

  it('refuses without hashing a stored hash that asks for more memory or parallelism than a verification may take', async () => {
    const stored = await hashPassword('correct horse battery');
    const [, , , , salt, hash] = stored.split('$');
    const asking = (log2N: number, r: number, p: number) => ['scrypt', log2N, r, p, salt, hash].join('$');
    hashes.started = 0;
    for (const costly of [asking(19, 8, 1), asking(22, 8, 1), asking(17, 17, 1), asking(17, 8, 5), asking(17, 0, 1), asking(17, 8.5, 1)]) {
      expect(await verifyPassword('correct horse battery', costly)).toBe(false);
    }
    expect(hashes.started).toBe(0);
    // Twice the default's memory is still verified (here at the test's cost, whatever the hash asks).
    await verifyPassword('correct horse battery', asking(18, 8, 1));
    expect(hashes.started).toBe(1);
  });
});
