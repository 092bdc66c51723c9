/**
 * Key builders for every entity in the single table: defined once, imported by repositories and tests.
 * The access patterns they serve are listed in shared/store/README.md.
 */
const enc = (part: string): string => part.replace(/#/g, '%23');

export const keys = {
  user: (userId: string) => ({ PK: `USER#${enc(userId)}`, SK: 'USER' }),
  /** Uniqueness claim of an e-mail address, and the login lookup. */
  emailClaim: (email: string) => ({ PK: `EMAIL#${enc(normaliseEmail(email))}`, SK: 'EMAIL' }),
  /** An external identity provider's subject (a Cognito user) mapped to our user. */
  externalIdentity: (issuer: string, subject: string) => ({
    PK: `IDENTITY#${enc(issuer)}#${enc(subject)}`,
    SK: 'IDENTITY',
  }),
  tenant: (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: 'TENANT' }),
  usage: (tenantId: string, periodStart: string) => ({ PK: `TENANT#${enc(tenantId)}`, SK: `USAGE#${periodStart}` }),
  agentPrefix: (tenantId: string) => ({ PK: `TENANT#${enc(tenantId)}`, SKPrefix: 'AGENT#' }),
  apiKey: (keyId: string) => ({ PK: `APIKEY#${enc(keyId)}`, SK: 'APIKEY' }),
  apiKeysOfTenant: (tenantId: string, createdAt: string, keyId: string) => ({
    GSI1PK: `TENANT#${enc(tenantId)}#APIKEYS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
  apiKeysOfTenantPartition: (tenantId: string) => `TENANT#${enc(tenantId)}#APIKEYS`,
  linkToken: (tokenHash: string) => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' }),
  delivery: (messageId: string) => ({ PK: `DELIVERY#${enc(messageId)}`, SK: 'DELIVERY' }),
  rateWindow: (credential: string, tier: string, windowStart: number) => ({
    PK: `RATE#${enc(credential)}#${tier}`,
    SK: String(windowStart),
  }),
} as const;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Item attributes that are key material, removed before an item becomes a record. */
export const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'expiresAt', 'entity'] as const;

export function stripKeys<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...item };
  for (const k of KEY_ATTRIBUTES) delete out[k];
  return out as T;
}
