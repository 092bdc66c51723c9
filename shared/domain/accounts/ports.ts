import type { PageInput, ReadPage, Total } from '../paging/page.ts';
import type { SubscriptionRecord } from '../plans/subscription.ts';

export const PROVIDERS = ['local', 'google', 'github'] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface UserRecord {
  id: string;
  tenantId: string;
  email: string;
  firstName: string;
  lastName: string;
  company: string | null;
  image: string | null;
  provider: Provider;
  /** Absent for users who sign in through an external identity provider. */
  passwordHash?: string;
  isActive: boolean;
  isAdmin: boolean;
  isEmailVerified: boolean;
  createdAt: string;
  updatedAt: string;
  /** When a reset last set the password: sign-ins and reset links from before it no longer work. */
  passwordChangedAt?: string;
}

export class EmailTakenError extends Error {}

export interface UsersRepository {
  get(userId: string): Promise<UserRecord | undefined>;
  /** Throws EmailTakenError when another user has the e-mail address. */
  create(user: UserRecord): Promise<void>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  /** Sets the password; false, setting nothing, when the user is gone or the password was reset at or after `unlessResetSince`. */
  setPasswordHash(userId: string, passwordHash: string, now: Date, unlessResetSince: Date): Promise<boolean>;
  markEmailVerified(userId: string, now: Date): Promise<void>;
  findUserIdByExternalIdentity(issuer: string, subject: string): Promise<string | undefined>;
  /** Links an external subject to a user; when another request linked it first, returns that user's id. */
  linkExternalIdentity(issuer: string, subject: string, userId: string): Promise<string>;
}

export interface TenantRecord {
  id: string;
  ownerUserId: string;
  subscription: SubscriptionRecord;
  createdAt: string;
}

export interface TenantsRepository {
  create(tenant: TenantRecord): Promise<void>;
  delete(tenantId: string): Promise<void>;
  get(tenantId: string): Promise<TenantRecord | undefined>;
  /** Spans accepted in the billing period that starts at `periodStart` (ISO 8601). */
  spansUsed(tenantId: string, periodStart: string): Promise<number>;
  /**
   * Adds `spans` (negative to give them back) to the period's counter; with `limit`, only when the
   * counter stays within it, as one atomic step. Whether they were added.
   */
  countSpans(tenantId: string, periodStart: string, spans: number, expiresAt: number, limit?: number): Promise<boolean>;
}

export const API_KEY_STATUSES = ['active', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  createdBy: string;
  name: string;
  prefix: string;
  lastFour: string;
  /** HMAC-SHA256 of the secret under the deployment's pepper; the secret itself is never stored. */
  secretHash: string;
  status: ApiKeyStatus;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
  rotatedAt: string | null;
  revokedAt: string | null;
}

export interface ApiKeysRepository {
  /** One page of the tenant's keys, newest first. */
  page(tenantId: string, page: PageInput): Promise<ReadPage<ApiKeyRecord>>;
  count(tenantId: string): Promise<Total>;
  create(record: ApiKeyRecord): Promise<void>;
  /** By key id alone: the authentication path, which learns the tenant from the key. */
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  getOwned(keyId: string, tenantId: string): Promise<ApiKeyRecord | undefined>;
  listAll(tenantId: string): Promise<ApiKeyRecord[]>;
  replaceSecret(keyId: string, tenantId: string, secretHash: string, lastFour: string, now: Date): Promise<ApiKeyRecord | undefined>;
  revoke(keyId: string, tenantId: string, now: Date): Promise<ApiKeyRecord | undefined>;
  delete(keyId: string, tenantId: string): Promise<boolean>;
  /** Records the use unless a use at or after `staleBefore` is already recorded. */
  touchLastUsed(keyId: string, now: Date, staleBefore: Date): Promise<void>;
}

export type LinkTokenPurpose = 'password-reset' | 'email-verification';

export interface LinkTokenRecord {
  purpose: LinkTokenPurpose;
  userId: string;
  expiresAt: number;
  /** When it was made (tokens made before 2026-11-30 have none). */
  issuedAtMs?: number;
}

/** Single-use tokens sent in e-mail links. */
export interface LinkTokensRepository {
  put(token: string, purpose: LinkTokenPurpose, userId: string, expires: Date, issued: Date): Promise<void>;
  /** Deletes and returns the token in one atomic step, so two concurrent uses cannot both succeed. */
  consume(token: string): Promise<LinkTokenRecord | undefined>;
}

/** One sign-in: the chain of refresh tokens that rotation hands out, revoked as a whole. */
export interface RefreshFamilyRecord {
  familyId: string;
  userId: string;
  /** Epoch seconds; no token of the family refreshes after it, however recently rotated. */
  expiresAt: number;
  revoked: boolean;
  /**
   * The user's `passwordChangedAt` as the sign-in that started the family read it ('' when the password
   * was never reset): once it differs, the password was reset after that sign-in checked it. Families
   * started before 2026-11-30 have none; their start follows from `expiresAt`.
   */
  passwordSetAt?: string;
}

export interface RefreshTokenRecord {
  familyId: string;
  userId: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** The outcome of presenting a refresh token: its first use, a second one (reuse), or no such token. */
export type RefreshTokenUse = { kind: 'first'; token: RefreshTokenRecord } | { kind: 'reused'; token: RefreshTokenRecord } | { kind: 'unknown' };

/** Refresh tokens and their families (sign-ins); a token is used once. */
export interface RefreshTokensRepository {
  createFamily(family: Omit<RefreshFamilyRecord, 'revoked'>): Promise<void>;
  getFamily(familyId: string): Promise<RefreshFamilyRecord | undefined>;
  /** Marks the family revoked: none of its tokens refreshes again. */
  revokeFamily(familyId: string, now: Date): Promise<void>;
  put(token: string, record: RefreshTokenRecord): Promise<void>;
  /** Uses a token: of two concurrent uses exactly one is the first; a later one finds it used (reuse). */
  use(token: string, now: Date): Promise<RefreshTokenUse>;
}

export interface SignInFailures {
  /**
   * Sign-ins in a row that did not succeed (since the last success, or since the count went stale),
   * the one being checked included: each is counted before its password is checked.
   */
  failures: number;
  lastFailureAtMs: number;
}

/** Failed sign-ins per e-mail address, whether or not an account has it (so the answers cannot tell). */
export interface SignInFailuresRepository {
  get(email: string): Promise<SignInFailures | undefined>;
  /**
   * Counts one more sign-in as failed until it succeeds (the first of a new series when `restart`), on
   * the condition that the count is still the one `seen`; resolves with the new count, or undefined
   * when another sign-in counted first.
   */
  countAttempt(email: string, seen: SignInFailures | undefined, nowMs: number, restart: boolean, expiresAtSeconds: number): Promise<number | undefined>;
  clear(email: string): Promise<void>;
}
