import type * as z from 'zod/mini';
import type { forgotPasswordBody, loginBody, registerBody, resetPasswordBody, verifyEmailQuery } from '../../schemas/routes/auth.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors.ts';
import type { OutboundMessage } from '../notifications/messages.ts';
import type { PlanKey } from '../plans/plans.ts';
import { currentPeriod, newSubscription, subscriptionView } from '../plans/subscription.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { Store } from '../store.ts';
import { issueAccessToken, type JwtSettings, providerOf, type VerifiedToken } from './jwt.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords.ts';
import { EmailTakenError, type Provider, type UserRecord } from './ports.ts';
import { newLinkToken, sha256 } from './secrets.ts';
import { SignInBackoff } from './sign-in-backoff.ts';
import type { SigningMaterial } from './signing-keys.ts';

export interface AccountsDeps {
  store: Pick<Store, 'users' | 'tenants' | 'linkTokens' | 'apiKeys' | 'agents' | 'signInFailures' | 'rateLimits'>;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
  signing: () => Promise<SigningMaterial>;
  jwt: JwtSettings;
  publicAppUrl: string;
  /** Where a failure that must not change the answer (an e-mail not queued) is reported. */
  reportError: (message: string, err: unknown) => void;
}

/** What one use case takes of the accounts' dependencies: some repositories, some of the rest. */
type Needs<R extends keyof AccountsDeps['store'], D extends Exclude<keyof AccountsDeps, 'store'> = never> = {
  store: Pick<AccountsDeps['store'], R>;
} & Pick<AccountsDeps, D>;
type TokenDeps = Needs<never, 'signing' | 'jwt' | 'clock'>;
type LinkEmailDeps = Needs<'linkTokens', 'clock' | 'ids' | 'queue' | 'publicAppUrl' | 'reportError'>;

const HOUR_MS = 3_600_000;
const RESET_TOKEN_TTL_MS = HOUR_MS;
const VERIFY_TOKEN_TTL_MS = 7 * 24 * HOUR_MS;

/** The user as the API shows it; never the password hash. */
export function publicUser(u: UserRecord) {
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    name: `${u.firstName} ${u.lastName}`.trim(),
    image: u.image,
    company: u.company,
    provider: u.provider,
    isActive: u.isActive,
    isAdmin: u.isAdmin,
    isEmailVerified: u.isEmailVerified,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

async function accessTokenFor(user: UserRecord, deps: TokenDeps) {
  const issued = await issueAccessToken({ userId: user.id, tenantId: user.tenantId, email: user.email }, await deps.signing(), deps.jwt, deps.clock.now());
  return { ...issued, tokenType: 'Bearer' as const };
}

async function sendLinkEmail(deps: LinkEmailDeps, user: UserRecord, purpose: 'password-reset' | 'email-verification'): Promise<void> {
  const token = newLinkToken();
  const now = deps.clock.now();
  const ttl = purpose === 'password-reset' ? RESET_TOKEN_TTL_MS : VERIFY_TOKEN_TTL_MS;
  await deps.store.linkTokens.put(token, purpose, user.id, new Date(now.getTime() + ttl), now);
  const message: OutboundMessage =
    purpose === 'password-reset'
      ? {
          id: deps.ids.next('msg'),
          channel: 'email',
          to: user.email,
          subject: 'Reset your Agent Observability password',
          text: [
            `Hello ${user.firstName},`,
            '',
            'Someone asked to reset the password of your Agent Observability account.',
            `Choose a new password here (the link works once, for one hour):`,
            `${deps.publicAppUrl}/reset-password?token=${token}`,
            '',
            'Or from a terminal:',
            `curl -X POST ${deps.publicAppUrl}/api/auth/reset-password -H 'Content-Type: application/json' -d '{"token":"${token}","password":"<new password>"}'`,
            '',
            'If it was not you, ignore this e-mail: your password stays as it is.',
          ].join('\n'),
        }
      : {
          id: deps.ids.next('msg'),
          channel: 'email',
          to: user.email,
          subject: 'Verify your e-mail address',
          text: [
            `Welcome to Agent Observability, ${user.firstName}!`,
            '',
            'Confirm your e-mail address by opening this link (valid for 7 days):',
            `${deps.publicAppUrl}/verify-email?token=${token}`,
            '',
            'Or from a terminal:',
            `curl ${deps.publicAppUrl}/api/auth/verify-email?token=${token}`,
          ].join('\n'),
        };
  await deps.queue.send('notify', [message]);
}

/** Queues a link e-mail; a failure is reported but does not change the answer the caller gets. */
async function trySendLinkEmail(deps: LinkEmailDeps, user: UserRecord, purpose: 'password-reset' | 'email-verification') {
  try {
    await sendLinkEmail(deps, user, purpose);
  } catch (err) {
    deps.reportError(`could not queue the ${purpose} e-mail`, err);
  }
}

/** The plan new accounts start on (`SIGN_UP_PLAN`); the trial when not given. */
export interface SignUpPlan {
  signUpPlan?: PlanKey;
}

/** A new user owns a new tenant on the sign-up plan. */
async function createAccount(
  deps: Needs<'users' | 'tenants', 'clock' | 'ids'> & SignUpPlan,
  fields: Pick<UserRecord, 'email' | 'firstName' | 'lastName' | 'company' | 'image' | 'provider' | 'isEmailVerified'> & {
    passwordHash?: string;
  },
): Promise<UserRecord> {
  const now = deps.clock.now();
  const userId = deps.ids.next('usr');
  const tenantId = deps.ids.next('tnt');
  const user: UserRecord = {
    id: userId,
    tenantId,
    isActive: true,
    isAdmin: false,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ...fields,
  };
  await deps.store.tenants.create({
    id: tenantId,
    ownerUserId: userId,
    subscription: newSubscription(now, deps.signUpPlan ?? 'trial'),
    createdAt: now.toISOString(),
  });
  try {
    await deps.store.users.create(user);
  } catch (err) {
    await deps.store.tenants.delete(tenantId);
    throw err;
  }
  return user;
}

export async function register(body: z.infer<typeof registerBody>, deps: Needs<'users' | 'tenants', 'clock' | 'ids'> & LinkEmailDeps & TokenDeps & SignUpPlan) {
  let user: UserRecord;
  try {
    user = await createAccount(deps, {
      email: body.email,
      firstName: body.firstName,
      lastName: body.lastName,
      company: body.company ?? null,
      image: null,
      provider: 'local',
      isEmailVerified: false,
      passwordHash: await hashPassword(body.password),
    });
  } catch (err) {
    if (err instanceof EmailTakenError) throw new ValidationError('email: an account with this e-mail already exists');
    throw err;
  }
  await trySendLinkEmail(deps, user, 'email-verification');
  return { user: publicUser(user), ...(await accessTokenFor(user, deps)) };
}

export async function login(body: z.infer<typeof loginBody>, deps: Needs<'users' | 'signInFailures', 'queue'> & TokenDeps) {
  const backoff = await SignInBackoff.check(body.email, deps);
  const user = await deps.store.users.findByEmail(body.email);
  // The same work whether or not the account exists: the answers must not tell.
  let passwordMatches = false;
  if (user?.passwordHash) passwordMatches = await verifyPassword(body.password, user.passwordHash);
  else await burnPasswordCheck(body.password);
  if (!user || !passwordMatches || !user.isActive) {
    await backoff.failed();
    throw new UnauthorizedError('Invalid e-mail or password');
  }
  await backoff.succeeded();
  // The user as its password was checked: the sign-in it starts ends if the password is reset after.
  return { session: { ...(await accessTokenFor(user, deps)), user: publicUser(user) }, user };
}

/**
 * Reset e-mails one address gets at most per hour from one client address, and from all of them:
 * enough for someone who lost one, too few to flood an inbox; and it takes several client addresses
 * to use up what the owner may need.
 */
export const RESET_EMAILS_PER_HOUR = { perClient: 3, total: 20 } as const;
const HOUR_SECONDS = 3600;

/**
 * E-mails a reset link to the account with this address, if there is one, within the hourly
 * allowances. The asking is counted whether or not an account has the address, and the answer is the same.
 */
export async function forgotPassword(body: z.infer<typeof forgotPasswordBody>, client: string, deps: Needs<'users' | 'rateLimits'> & LinkEmailDeps) {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const hour = nowSeconds - (nowSeconds % HOUR_SECONDS);
  // Keyed by the address as the store keys accounts (trimmed, lower-cased), hashed: no address is stored.
  const address = sha256(body.email.trim().toLowerCase());
  // Only the asks a client's allowance admits count toward the address's total: one client adds at
  // most its own allowance to it.
  const fromClient = await deps.store.rateLimits.hit(`${address}:${sha256(client)}`, 'password-reset', hour, HOUR_SECONDS);
  const allowed =
    fromClient <= RESET_EMAILS_PER_HOUR.perClient &&
    (await deps.store.rateLimits.hit(address, 'password-reset', hour, HOUR_SECONDS)) <= RESET_EMAILS_PER_HOUR.total;
  const user = await deps.store.users.findByEmail(body.email);
  if (user?.isActive && allowed) await trySendLinkEmail(deps, user, 'password-reset');
  return { message: 'If an account exists for this e-mail, a reset link is on its way.' };
}

async function consumeLinkToken(token: string, purpose: 'password-reset' | 'email-verification', deps: Needs<'linkTokens', 'clock'>) {
  const record = await deps.store.linkTokens.consume(token);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  if (!record || record.purpose !== purpose || record.expiresAt <= nowSeconds) {
    throw new ValidationError('token: invalid, expired or already used');
  }
  return record;
}

export async function resetPassword(body: z.infer<typeof resetPasswordBody>, deps: Needs<'linkTokens' | 'users', 'clock'>) {
  const { userId, expiresAt, issuedAtMs } = await consumeLinkToken(body.token, 'password-reset', deps);
  const passwordHash = await hashPassword(body.password);
  // A reset ends the links sent before it: one still in the mailbox must not change the password again.
  // The write checks it, so two links used at once cannot both pass (a link made before 2026-11-30 has
  // no time of its own: it was made a lifetime before it expires).
  const issued = new Date(issuedAtMs ?? expiresAt * 1000 - RESET_TOKEN_TTL_MS);
  // Only a refused write is the token's fault; any other failure is the store's, and answers as such.
  if (!(await deps.store.users.setPasswordHash(userId, passwordHash, deps.clock.now(), issued))) {
    throw new ValidationError('token: invalid, expired or already used');
  }
  return { message: 'Your password has been changed. Sign in with the new one.' };
}

export async function verifyEmail(query: z.infer<typeof verifyEmailQuery>, deps: Needs<'linkTokens' | 'users', 'clock'>) {
  const { userId } = await consumeLinkToken(query.token, 'email-verification', deps);
  try {
    await deps.store.users.markEmailVerified(userId, deps.clock.now());
  } catch {
    throw new ValidationError('token: invalid, expired or already used');
  }
  return { message: 'Your e-mail address is verified.', isEmailVerified: true };
}

/** `GET /users/profile`: the spec's fields, usage and resource counts read from the store. */
export async function profile(userId: string, deps: Needs<'users' | 'tenants' | 'agents' | 'apiKeys', 'clock'>) {
  const user = await deps.store.users.get(userId);
  if (!user) throw new NotFoundError('User');
  const tenant = await deps.store.tenants.get(user.tenantId);
  if (!tenant) throw new NotFoundError('User');
  const now = deps.clock.now();
  const period = currentPeriod(tenant.subscription, now);
  const [spansUsed, agentCount, keys] = await Promise.all([
    deps.store.tenants.spansUsed(tenant.id, period.start.toISOString()),
    deps.store.agents.count(tenant.id),
    deps.store.apiKeys.listAll(tenant.id),
  ]);
  return {
    ...publicUser(user),
    subscription: subscriptionView(tenant.subscription, spansUsed, now),
    resources: { agentCount, activeApiKeyCount: keys.filter((k) => k.status === 'active').length },
  };
}

const isEmailVerified = (token: Extract<VerifiedToken, { kind: 'external' }>): boolean =>
  token.payload['email_verified'] === true || token.payload['email_verified'] === 'true';

/**
 * The user behind an external identity provider's token (a Cognito user pool), created on first
 * sight with the provider its `identities` claim names. Concurrent first requests link one user.
 */
export async function userForExternalToken(
  token: Extract<VerifiedToken, { kind: 'external' }>,
  deps: Needs<'users' | 'tenants', 'clock' | 'ids'> & SignUpPlan,
): Promise<UserRecord> {
  const linkedId = await deps.store.users.findUserIdByExternalIdentity(token.issuer, token.subject);
  const linked = linkedId ? await deps.store.users.get(linkedId) : undefined;
  if (linked) return linked;
  const email = typeof token.payload['email'] === 'string' ? token.payload['email'].toLowerCase() : '';
  if (!email) throw new UnauthorizedError('The identity token carries no e-mail address');
  const provider: Provider = providerOf(token.payload);
  let user: UserRecord;
  try {
    user = await createAccount(deps, {
      email,
      firstName: String(token.payload['given_name'] ?? email.split('@')[0]),
      lastName: String(token.payload['family_name'] ?? ''),
      company: null,
      image: typeof token.payload['picture'] === 'string' ? token.payload['picture'] : null,
      provider,
      isEmailVerified: isEmailVerified(token),
    });
  } catch (err) {
    if (!(err instanceof EmailTakenError)) throw err;
    // The e-mail already has an account here. Joining it is safe only when the provider vouches for
    // the address; otherwise anyone could claim an account by naming its e-mail at the provider.
    const existing = await deps.store.users.findByEmail(email);
    if (!existing || !isEmailVerified(token)) {
      throw new UnauthorizedError('An account with this e-mail exists; sign in with its password');
    }
    user = existing;
  }
  const winner = await deps.store.users.linkExternalIdentity(token.issuer, token.subject, user.id);
  return winner === user.id ? user : ((await deps.store.users.get(winner)) ?? user);
}
