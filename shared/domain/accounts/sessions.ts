import { UnauthorizedError } from '../errors.ts';
import type { Clock, Ids } from '../ports.ts';
import type { Store } from '../store.ts';
import { issueAccessToken, type JwtSettings } from './jwt.ts';
import type { RefreshFamilyRecord, UserRecord } from './ports.ts';
import { newLinkToken } from './secrets.ts';
import type { SigningMaterial } from './signing-keys.ts';
import { publicUser } from './users.ts';

/**
 * How long a browser stays signed in: a refresh token lasts a day from its last use (a working day
 * with a reload the next morning), and no sign-in lasts beyond a week without the password.
 */
export const REFRESH_TOKEN_TTL_SECONDS = 24 * 3600;
export const SIGN_IN_MAX_SECONDS = 7 * 24 * 3600;

export interface SessionDeps {
  store: Pick<Store, 'refreshTokens' | 'users'>;
  clock: Clock;
  ids: Ids;
  signing: () => Promise<SigningMaterial>;
  jwt: JwtSettings;
}

export interface RefreshGrant {
  token: string;
  /** Seconds the token is valid: the cookie's Max-Age. */
  maxAgeSeconds: number;
}

const SIGNED_OUT = 'Your session has ended; sign in again';

const nowSeconds = (clock: Clock) => Math.floor(clock.now().getTime() / 1000);

/**
 * Whether the password was reset after the sign-in checked it: the family keeps the reset time its
 * sign-in read, so a sign-in that checked the old password while the reset was written (or read a
 * user not yet showing it) ends too. A family from before 2026-11-30 began `SIGN_IN_MAX_SECONDS`
 * before it ends.
 */
function startedBeforePasswordChange(family: RefreshFamilyRecord, user: UserRecord): boolean {
  if (family.passwordSetAt !== undefined) return family.passwordSetAt !== (user.passwordChangedAt ?? '');
  if (user.passwordChangedAt === undefined) return false;
  return (family.expiresAt - SIGN_IN_MAX_SECONDS) * 1000 < Date.parse(user.passwordChangedAt);
}

async function grant(familyId: string, userId: string, familyExpiresAt: number, deps: Pick<SessionDeps, 'store' | 'clock'>): Promise<RefreshGrant> {
  const token = newLinkToken();
  const expiresAt = Math.min(nowSeconds(deps.clock) + REFRESH_TOKEN_TTL_SECONDS, familyExpiresAt);
  await deps.store.refreshTokens.put(token, { familyId, userId, expiresAt });
  return { token, maxAgeSeconds: expiresAt - nowSeconds(deps.clock) };
}

/** A new sign-in (after the password, checked against `user` as read then): a family of its own and its first refresh token. */
export async function startSignIn(
  user: Pick<UserRecord, 'id' | 'passwordChangedAt'>,
  deps: Pick<SessionDeps, 'store' | 'clock' | 'ids'>,
): Promise<RefreshGrant> {
  const familyId = deps.ids.next('sgn');
  const expiresAt = nowSeconds(deps.clock) + SIGN_IN_MAX_SECONDS;
  await deps.store.refreshTokens.createFamily({ familyId, userId: user.id, expiresAt, passwordSetAt: user.passwordChangedAt ?? '' });
  return grant(familyId, user.id, expiresAt, deps);
}

/**
 * Rotation: a refresh token buys a new access token and the next refresh token of its family, once.
 * A token presented a second time means two parties hold it (one of them stole it): the whole family
 * is revoked, so neither the thief's nor the user's later tokens work until the password is given again.
 */
export async function refreshSignIn(token: string | undefined, deps: SessionDeps) {
  if (!token) throw new UnauthorizedError(SIGNED_OUT);
  const use = await deps.store.refreshTokens.use(token, deps.clock.now());
  if (use.kind === 'unknown') throw new UnauthorizedError(SIGNED_OUT);
  if (use.kind === 'reused') {
    await deps.store.refreshTokens.revokeFamily(use.token.familyId, deps.clock.now());
    throw new UnauthorizedError(SIGNED_OUT);
  }
  const now = nowSeconds(deps.clock);
  // The token names its family and its user: both are read at once (a refresh starts every page load).
  const [family, user, keys] = await Promise.all([
    deps.store.refreshTokens.getFamily(use.token.familyId),
    deps.store.users.get(use.token.userId),
    deps.signing(),
  ]);
  if (!family || family.revoked || family.expiresAt <= now || use.token.expiresAt <= now) throw new UnauthorizedError(SIGNED_OUT);
  if (!user?.isActive || user.id !== family.userId) throw new UnauthorizedError(SIGNED_OUT);
  if (startedBeforePasswordChange(family, user)) {
    // A reset is how an owner takes an account back: what signed in before it ends with it.
    await deps.store.refreshTokens.revokeFamily(family.familyId, deps.clock.now());
    throw new UnauthorizedError(SIGNED_OUT);
  }
  const [issued, next] = await Promise.all([
    issueAccessToken({ userId: user.id, tenantId: user.tenantId, email: user.email }, keys, deps.jwt, deps.clock.now()),
    grant(family.familyId, user.id, family.expiresAt, deps),
  ]);
  return { session: { ...issued, tokenType: 'Bearer' as const, user: publicUser(user) }, refresh: next };
}

/** Signing out ends the family of the presented token; an unknown or missing token changes nothing. */
export async function endSignIn(token: string | undefined, deps: Pick<SessionDeps, 'store' | 'clock'>) {
  if (token) {
    const use = await deps.store.refreshTokens.use(token, deps.clock.now());
    if (use.kind !== 'unknown') await deps.store.refreshTokens.revokeFamily(use.token.familyId, deps.clock.now());
  }
  return { message: 'Signed out.' };
}
