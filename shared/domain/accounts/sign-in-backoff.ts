import { RateLimitedError } from '../errors.ts';
import { type DeliveryDeps, type DeliveryOutcome, deliver } from '../notifications/deliver.ts';
import type { SignInLockoutJob } from '../notifications/messages.ts';
import type { Clock, QueuePort } from '../ports.ts';
import type { Store } from '../store.ts';
import type { SignInFailures } from './ports.ts';
import { sha256 } from './secrets.ts';

/**
 * Per-account sign-in backoff, on top of the per-address limit: after `FREE_FAILURES` failed sign-ins
 * in a row, an e-mail address is locked for a minute, and each further failure after a lock doubles
 * the lock, up to an hour. A success clears the count; so does a day without failures. Each sign-in
 * is counted as failed before its password is checked (and the count cleared when it succeeds), one
 * at a time on the count each saw, so sign-ins sent at once cannot all pass the check before any is
 * counted: at most `FREE_FAILURES` passwords are checked before the lock. The count is
 * kept per address whether or not an account has it, and the same work is done either way (the owner's
 * e-mail is queued as a job the notify worker resolves), so no answer tells whether the account exists.
 */
export const FREE_FAILURES = 5;
const FIRST_LOCK_MS = 60_000;
const MAX_LOCK_MS = 3_600_000;
/** A series of failures older than this is forgotten. */
export const FAILURES_FORGOTTEN_AFTER_MS = 24 * 3_600_000;

/** How long the address is locked after its `failures`-th failure in a row. */
export function lockAfter(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(FIRST_LOCK_MS * 2 ** Math.min(failures - FREE_FAILURES, 16), MAX_LOCK_MS);
}

const isStale = (record: SignInFailures | undefined, nowMs: number) => !record || nowMs - record.lastFailureAtMs >= FAILURES_FORGOTTEN_AFTER_MS;

/** When the lock of this record ends, if it is locked at `nowMs`. */
export function lockedUntil(record: SignInFailures | undefined, nowMs: number): number | undefined {
  if (!record || isStale(record, nowMs)) return undefined;
  const until = record.lastFailureAtMs + lockAfter(record.failures);
  return until > nowMs ? until : undefined;
}

export interface SignInBackoffDeps {
  store: Pick<Store, 'signInFailures'>;
  queue: QueuePort;
  clock: Clock;
}

/**
 * How many times a sign-in reads the count again when others counted first. Each round counts one of
 * the sign-ins sent at once, and the lock stops the rest after `FREE_FAILURES`; past this, the sign-in
 * is refused as over the limit (a burst at one address, not a person).
 */
const COUNT_ATTEMPTS = 2 * FREE_FAILURES;

export class SignInBackoff {
  private constructor(
    private readonly email: string,
    private readonly failures: number,
    private readonly countedAtMs: number,
    private readonly deps: SignInBackoffDeps,
  ) {}

  /**
   * Refuses (429, Retry-After) while the address is locked, before any password is checked; otherwise
   * counts this sign-in as failed until `succeeded` clears the count.
   */
  static async check(email: string, deps: SignInBackoffDeps): Promise<SignInBackoff> {
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const record = await deps.store.signInFailures.get(email);
      const nowMs = deps.clock.now().getTime();
      const until = lockedUntil(record, nowMs);
      if (until !== undefined) throw new RateLimitedError(Math.ceil((until - nowMs) / 1000));
      const expiresAt = Math.floor((nowMs + FAILURES_FORGOTTEN_AFTER_MS + MAX_LOCK_MS) / 1000);
      const failures = await deps.store.signInFailures.countAttempt(email, record, nowMs, isStale(record, nowMs), expiresAt);
      if (failures !== undefined) return new SignInBackoff(email, failures, nowMs, deps);
    }
    throw new RateLimitedError(1);
  }

  /** The sign-in failed (it is counted already): the one that engages the lock queues the owner's e-mail (sent only if the account exists). */
  async failed(): Promise<void> {
    if (this.failures !== FREE_FAILURES) return;
    const job: SignInLockoutJob = {
      kind: 'sign-in-lockout',
      email: this.email,
      failures: this.failures,
      lockedUntil: new Date(this.countedAtMs + lockAfter(this.failures)).toISOString(),
      occurrenceKey: String(this.countedAtMs),
    };
    await this.deps.queue.send('notify', [job]);
  }

  async succeeded(): Promise<void> {
    await this.deps.store.signInFailures.clear(this.email);
  }
}

export interface LockoutNoticeDeps extends DeliveryDeps {
  users: Pick<Store['users'], 'findByEmail'>;
  publicAppUrl: string;
}

/** Text as one single-quoted shell word (an address may hold an apostrophe: o'brien@example.com). */
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** Tells the owner of the locked address, if an account has it, once per lock (redeliveries are deduplicated). */
export async function noticeSignInLockout(job: SignInLockoutJob, deps: LockoutNoticeDeps): Promise<DeliveryOutcome | 'no-account'> {
  const user = await deps.users.findByEmail(job.email);
  if (!user?.isActive || !user.passwordHash) return 'no-account';
  const minutes = Math.max(1, Math.round((Date.parse(job.lockedUntil) - Number(job.occurrenceKey)) / 60_000));
  return deliver(
    {
      id: `signin-${sha256(`${user.id}#${job.occurrenceKey}`)}`,
      channel: 'email',
      to: user.email,
      subject: 'Sign-ins to your Agent Observability account are paused',
      text: [
        `Hello ${user.firstName},`,
        '',
        `Someone entered a wrong password for your account ${job.failures} times in a row, so sign-ins are paused for ${minutes} minute${minutes === 1 ? '' : 's'} (until ${job.lockedUntil}); each further wrong password after that pauses them longer, up to an hour.`,
        '',
        'If it was you, wait and try again, or choose a new password:',
        `${deps.publicAppUrl}/forgot-password`,
        '',
        'Or from a terminal:',
        `curl -X POST ${deps.publicAppUrl}/api/auth/forgot-password -H 'Content-Type: application/json' -d ${shellQuoted(JSON.stringify({ email: user.email }))}`,
        '',
        'If it was not you, your password held: nobody signed in. Choosing a new, unique password is still a good idea.',
      ].join('\n'),
    },
    deps,
  );
}
