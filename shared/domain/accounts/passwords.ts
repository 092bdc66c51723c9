import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { limitFunction } from 'p-limit';

/** scrypt with N=2^17, r=8, p=1 (OWASP's first choice); the parameters travel with each hash. */
const DEFAULT = { log2N: 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MIN_LOG2N = 17;
/**
 * What a stored hash may ask of one verification: twice the default's memory (room to raise N or r
 * once), and p up to 4.
 */
const MAX_HASH_BYTES = 2 * 128 * 2 ** DEFAULT.log2N * DEFAULT.r;
const MAX_P = 4;

/**
 * Hashes in progress at once in one process. Each takes 128 × N × r bytes of working memory (128 MiB
 * at the default parameters, 256 MiB at most: MAX_HASH_BYTES), on libuv's pool, four threads by
 * default, so four sign-ins at once would add 512 MiB to the process for the time of a hash. A
 * Lambda container serves one request at a time, so this binds the local runtime, where one process
 * serves every sign-in: two at once keep two cores busy, and a third waits for one of them.
 */
const HASHES_AT_ONCE = 2;

const derive = limitFunction(
  (password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> => {
    const N = 2 ** log2N;
    const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
    return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
  },
  { concurrency: HASHES_AT_ONCE },
);

/** `scrypt$<log2N>$<r>$<p>$<salt b64url>$<hash b64url>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULT.log2N, DEFAULT.r, DEFAULT.p);
  return ['scrypt', DEFAULT.log2N, DEFAULT.r, DEFAULT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const [n, blockSize, parallelism] = [Number(log2N), Number(r), Number(p)];
  if (![n, blockSize, parallelism].every(Number.isInteger) || n < MIN_LOG2N || blockSize < 1 || parallelism < 1 || parallelism > MAX_P) return false;
  if (128 * 2 ** n * blockSize > MAX_HASH_BYTES) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), n, blockSize, parallelism);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

let dummyHash: Promise<string> | undefined;
/**
 * Spends the same time as a real verification, so an unknown e-mail cannot be told from a wrong
 * password by the response time.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password');
  await verifyPassword(password, await dummyHash);
}
