import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { ExternalIssuer } from '../config.ts';
import { signingMaterialFromSeed, type SigningMaterial } from '../domain/accounts/signing-keys.ts';

/** The signing seed: given directly (local), or read once per cold start from Secrets Manager (AWS). */
export function signingMaterialLoader(source: { seed?: string; secretArn?: string }): () => Promise<SigningMaterial> {
  let loaded: Promise<SigningMaterial> | undefined;
  return () => {
    loaded ??= (async () => {
      if (source.seed) return signingMaterialFromSeed(source.seed);
      if (!source.secretArn) {
        throw new Error('invalid configuration: this function needs SIGNING_SEED or SIGNING_SEED_SECRET_ARN');
      }
      const { SecretString } = await new SecretsManagerClient({}).send(
        new GetSecretValueCommand({ SecretId: source.secretArn }),
      );
      if (!SecretString) throw new Error('the signing secret is empty');
      return signingMaterialFromSeed(SecretString);
    })();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
}

/** The key sets of external identity providers (their JWKS), fetched on demand and cached per URL. */
export function remoteKeySets(): (issuer: ExternalIssuer) => JWTVerifyGetKey {
  const cache = new Map<string, JWTVerifyGetKey>();
  return (issuer) => {
    const url = issuer.jwksUrl ?? `${issuer.issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
    let set = cache.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cooldownDuration: 30_000 });
      cache.set(url, set);
    }
    return set;
  };
}
