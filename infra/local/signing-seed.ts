import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBase62 } from '#shared/domain/accounts/secrets.ts';

const SEED_LENGTH = 64;

/**
 * The seed all signing keys derive from: kept in `<dataDir>/secrets/signing-seed` (readable by the
 * owner only) so that tokens stay valid across restarts; a fresh one per run without a data dir.
 */
export async function loadSigningSeed(dataDir: string | undefined): Promise<string> {
  if (!dataDir) return randomBase62(SEED_LENGTH);
  const dir = join(dataDir, 'secrets');
  const file = join(dir, 'signing-seed');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${randomBase62(SEED_LENGTH)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const seed = (await readFile(file, 'utf8')).trim();
  if (seed.length < 32) throw new Error(`${file} must hold a seed of at least 32 characters`);
  return seed;
}
