import type * as z from 'zod/mini';
import type { createKeyBody } from '../../schemas/routes/keys.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors.ts';
import type { PageInput } from '../paging/page.ts';
import type { Clock } from '../ports.ts';
import { apiKeySecretMatches, displayPrefix, issueApiKey, newApiKeyId, parseApiKey } from './api-keys.ts';
import type { ApiKeyRecord, ApiKeysRepository } from './ports.ts';
import type { SigningMaterial } from './signing-keys.ts';

export interface ApiKeyDeps {
  apiKeys: ApiKeysRepository;
  clock: Clock;
  signing: () => Promise<SigningMaterial>;
}

/** A key as listings show it: never the secret, never its hash. */
export function publicKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    lastFour: k.lastFour,
    status: k.status,
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
    lastUsedAt: k.lastUsedAt,
    rotatedAt: k.rotatedAt,
    revokedAt: k.revokedAt,
  };
}

/** One page of the tenant's keys, newest first. */
export async function listKeys(tenantId: string, page: PageInput, store: { apiKeys: ApiKeysRepository }) {
  const [result, total] = await Promise.all([store.apiKeys.page(tenantId, page), store.apiKeys.count(tenantId)]);
  return { ...result, items: result.items.map(publicKey), total: total.count, totalExact: total.exact };
}

export async function createKey(tenantId: string, userId: string, body: z.infer<typeof createKeyBody>, deps: ApiKeyDeps) {
  const { apiKeyPepper } = await deps.signing();
  const now = deps.clock.now().toISOString();
  const keyId = newApiKeyId();
  const issued = issueApiKey(keyId, apiKeyPepper);
  const record: ApiKeyRecord = {
    id: keyId,
    tenantId,
    createdBy: userId,
    name: body.name,
    prefix: displayPrefix(keyId),
    lastFour: issued.lastFour,
    secretHash: issued.secretHash,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    rotatedAt: null,
    revokedAt: null,
  };
  await deps.apiKeys.create(record);
  return { ...publicKey(record), key: issued.key };
}

export async function refreshKey(tenantId: string, keyId: string, deps: ApiKeyDeps) {
  const existing = await deps.apiKeys.getOwned(keyId, tenantId);
  if (!existing) throw new NotFoundError('API key');
  if (existing.status !== 'active') throw new ValidationError('id: a revoked API key cannot be refreshed');
  const { apiKeyPepper } = await deps.signing();
  const issued = issueApiKey(keyId, apiKeyPepper);
  const updated = await deps.apiKeys.replaceSecret(keyId, tenantId, issued.secretHash, issued.lastFour, deps.clock.now());
  if (!updated) throw new ValidationError('id: the API key was revoked or deleted meanwhile');
  return { ...publicKey(updated), key: issued.key };
}

export async function revokeKey(tenantId: string, keyId: string, deps: ApiKeyDeps) {
  const updated = await deps.apiKeys.revoke(keyId, tenantId, deps.clock.now());
  if (!updated) throw new NotFoundError('API key');
  return publicKey(updated);
}

export async function deleteKey(tenantId: string, keyId: string, deps: ApiKeyDeps) {
  if (!(await deps.apiKeys.delete(keyId, tenantId))) throw new NotFoundError('API key');
  return { id: keyId, deleted: true };
}

/** `lastUsedAt` is recorded at most once a minute per key, so authentication costs one write a minute, not one a request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The tenant an `x-api-key` header speaks for; a malformed, unknown, revoked or wrong key → 401. */
export async function authenticateApiKey(presented: string, deps: ApiKeyDeps): Promise<{ tenantId: string; keyId: string }> {
  const parsed = parseApiKey(presented);
  if (!parsed) throw new UnauthorizedError('Invalid API key');
  const record = await deps.apiKeys.get(parsed.keyId);
  const { apiKeyPepper } = await deps.signing();
  if (!record || !apiKeySecretMatches(parsed.secret, record.secretHash, apiKeyPepper)) {
    throw new UnauthorizedError('Invalid API key');
  }
  if (record.status !== 'active') throw new UnauthorizedError('This API key has been revoked');
  const now = deps.clock.now();
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  // Skipped when the key as read is fresh: a conditional write that fails still costs a write unit.
  if (record.lastUsedAt === null || record.lastUsedAt < staleBefore.toISOString()) await deps.apiKeys.touchLastUsed(record.id, now, staleBefore);
  return { tenantId: record.tenantId, keyId: record.id };
}
