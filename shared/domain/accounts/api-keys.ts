import { crc32 } from 'node:zlib';
import { base62, constantTimeEqual, hmacSha256, randomBase62 } from './secrets.ts';

/**
 * API key format: `aos_live_<keyId>_<secret><checksum>`.
 * - keyId: 16 base62 characters, the public handle the store looks the key up by;
 * - secret: 32 base62 characters (about 190 bits), never stored, only its keyed hash;
 * - checksum: CRC-32 of everything before it, 6 base62 characters, so a mistyped or truncated key
 *   is refused without a database read and secret scanners can recognise real keys.
 */
export const API_KEY_PREFIX = 'aos_live_';
const KEY_ID_LENGTH = 16;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

const checksum = (body: string): string => base62(crc32(body), CHECKSUM_LENGTH);

export interface IssuedApiKey {
  keyId: string;
  /** The full key, shown to its owner once. */
  key: string;
  secretHash: string;
  lastFour: string;
}

export const newApiKeyId = (): string => randomBase62(KEY_ID_LENGTH);

export function issueApiKey(keyId: string, pepper: Buffer): IssuedApiKey {
  const secret = randomBase62(SECRET_LENGTH);
  const body = `${API_KEY_PREFIX}${keyId}_${secret}`;
  const key = body + checksum(body);
  return { keyId, key, secretHash: hashApiKeySecret(secret, pepper), lastFour: key.slice(-4) };
}

export function hashApiKeySecret(secret: string, pepper: Buffer): string {
  return hmacSha256(pepper, secret);
}

export interface ParsedApiKey {
  keyId: string;
  secret: string;
}

/** Returns undefined for anything that is not a well-formed key with a valid checksum. */
export function parseApiKey(presented: string): ParsedApiKey | undefined {
  const m = KEY_PATTERN.exec(presented.trim());
  if (!m) return undefined;
  const [, keyId, secret, sum] = m as unknown as [string, string, string, string];
  if (checksum(`${API_KEY_PREFIX}${keyId}_${secret}`) !== sum) return undefined;
  return { keyId, secret };
}

export const apiKeySecretMatches = (secret: string, storedHash: string, pepper: Buffer): boolean =>
  constantTimeEqual(hashApiKeySecret(secret, pepper), storedHash);

/** What a listing shows of a key: enough to recognise it, never enough to use it. */
export const displayPrefix = (keyId: string): string => `${API_KEY_PREFIX}${keyId.slice(0, 4)}`;
