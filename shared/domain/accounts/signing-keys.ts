import { createECDH, createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/**
 * Every secret the service signs or keys with is derived from one random seed (64+ characters):
 * locally a file in DATA_DIR made on first start, on AWS a generated Secrets Manager secret.
 * Deriving with HKDF keeps the ES256 JWT key, the API-key pepper and the list-cursor key independent
 * of each other. jose signs and verifies with the key; it has no derivation of a key from a seed,
 * hence this one.
 */
export interface SigningMaterial {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  kid: string;
  apiKeyPepper: Buffer;
  /** Signs the opaque cursors of list pages (`pagination.nextCursor`) and of search and export pages, so a client can neither forge nor reuse another tenant's. */
  cursorKey: Buffer;
}

const derive = (seed: string, label: string): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(seed, 'utf8'), Buffer.from('aos-v1'), Buffer.from(label), 32));

function p256FromSeed(seed: string): JWK & { crv: string; x: string; y: string } {
  for (let counter = 0; counter < 16; counter++) {
    const d = derive(seed, `jwt-es256-${counter}`);
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(d); // refuses the (about 2^-32 likely) scalars outside the curve order
    } catch {
      continue;
    }
    const point = ecdh.getPublicKey(); // 0x04 || x || y
    return {
      kty: 'EC',
      crv: 'P-256',
      d: d.toString('base64url'),
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    };
  }
  throw new Error('could not derive a P-256 key from the signing seed');
}

export async function signingMaterialFromSeed(seed: string): Promise<SigningMaterial> {
  if (seed.length < 32) throw new Error('the signing seed must be at least 32 characters');
  const privateJwk = p256FromSeed(seed);
  const { d: _private, ...publicFields } = privateJwk;
  const kid = await calculateJwkThumbprint(publicFields, 'sha256');
  const publicJwk: JWK = { ...publicFields, kid, alg: 'ES256', use: 'sig' };
  const privateKey = createPrivateKey({ key: privateJwk, format: 'jwk' });
  return {
    privateKey,
    publicKey: createPublicKey(privateKey),
    publicJwk,
    kid,
    apiKeyPepper: derive(seed, 'api-key-pepper'),
    cursorKey: derive(seed, 'list-cursor'),
  };
}
