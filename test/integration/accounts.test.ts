import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { refreshSignIn, startSignIn } from '#shared/domain/accounts/sessions.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { type AccountsDeps, forgotPassword, login, RESET_EMAILS_PER_HOUR, register, resetPassword, verifyEmail } from '#shared/domain/accounts/users.ts';
import { UnauthorizedError, ValidationError } from '#shared/domain/errors.ts';
import type { OutboundMessage } from '#shared/domain/notifications/messages.ts';
import type { Store } from '#shared/domain/store.ts';
import { startStore } from '../support/dynamo.ts';

let stop: () => Promise<void>;
let deps: AccountsDeps;
let fullStore: Store;
let now = new Date('2026-06-01T09:00:00Z');
const queued: OutboundMessage[] = [];
const reported: string[] = [];
let queueDown = false;

beforeAll(async () => {
  const started = await startStore();
  stop = started.stop;
  fullStore = started.store;
  const signing = await signingMaterialFromSeed('accounts-integration-seed-0123456789abcdef');
  deps = {
    store: started.store,
    clock: { now: () => now },
    ids: randomIds,
    queue: {
      send: async (_queue: string, messages: readonly unknown[]) => {
        if (queueDown) throw new Error('SQS unavailable');
        queued.push(...(messages as OutboundMessage[]));
      },
    },
    signing: async () => signing,
    jwt: { issuer: 'urn:aos:it', audience: 'aos-api', ttlSeconds: 3600 },
    publicAppUrl: 'https://app.example.com',
    reportError: (message) => void reported.push(message),
  };
});
afterAll(() => stop());

let seq = 0;
const account = () => ({ email: `it${++seq}@example.com`, password: 'password-123', firstName: 'Ada', lastName: 'L' });
const tokenIn = (m: OutboundMessage | undefined) => /token=([\w-]+)/.exec(m?.text ?? '')![1]!;
/** The address a test's requests come from. */
const CLIENT = '203.0.113.7';
const lastMailTo = (to: string) => queued.filter((m) => m.to === to).at(-1);

describe('account use cases', () => {
  it('a reset the store fails to write is not answered as a bad token (a refused write is)', async () => {
    const a = account();
    await register(a, deps);
    await forgotPassword({ email: a.email }, CLIENT, deps);
    const token = tokenIn(lastMailTo(a.email));
    const failing = {
      ...deps,
      store: { ...deps.store, users: { ...deps.store.users, setPasswordHash: async () => Promise.reject(new Error('table unavailable')) } },
    };
    const failed = await resetPassword({ token, password: 'new-password-123' }, failing).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(ValidationError);
  });

  it('a reset ends a sign-in that checked the old password while the reset was being written, and of two links used at once one works', async () => {
    const a = account();
    await register(a, deps);
    const { user } = await login({ email: a.email, password: a.password }, deps);
    for (let i = 0; i < 2; i++) await forgotPassword({ email: a.email }, CLIENT, deps);
    const links = queued.filter((m) => m.to === a.email && m.channel === 'email' && /reset/i.test(m.subject)).map(tokenIn);
    now = new Date(now.getTime() + 1000);
    const resets = await Promise.allSettled(links.map((token, i) => resetPassword({ token, password: `new-password-${i}` }, deps)));
    expect(resets.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    // The sign-in whose password was checked before the reset starts its family only now: it ends all the same.
    now = new Date(now.getTime() + 1000);
    const sessions = { ...deps, store: fullStore };
    const started = await startSignIn(user, sessions);
    await expect(refreshSignIn(started.token, sessions)).rejects.toBeInstanceOf(UnauthorizedError);
    const winner = resets.findIndex((r) => r.status === 'fulfilled');
    const after = await login({ email: a.email, password: `new-password-${winner}` }, deps);
    await expect(refreshSignIn((await startSignIn(after.user, sessions)).token, sessions)).resolves.toMatchObject({
      session: { accessToken: expect.any(String) },
    });
  });

  it('a reset token expires after one hour', async () => {
    const a = account();
    await register(a, deps);
    await forgotPassword({ email: a.email }, CLIENT, deps);
    const token = tokenIn(lastMailTo(a.email));
    now = new Date(now.getTime() + 3_600_000 + 1000);
    await expect(resetPassword({ token, password: 'new-password-1' }, deps)).rejects.toBeInstanceOf(ValidationError);
    expect((await login({ email: a.email, password: a.password }, deps)).session.user.email).toBe(a.email);
  });

  it('a verification token cannot reset a password, nor a reset token verify an e-mail', async () => {
    const a = account();
    await register(a, deps);
    const verification = tokenIn(lastMailTo(a.email));
    await expect(resetPassword({ token: verification, password: 'new-password-2' }, deps)).rejects.toBeInstanceOf(ValidationError);
    await forgotPassword({ email: a.email }, CLIENT, deps);
    const reset = tokenIn(lastMailTo(a.email));
    await expect(verifyEmail({ token: reset }, deps)).rejects.toBeInstanceOf(ValidationError);
  });

  it('the reset link points at the configured app and the e-mail never contains the password', async () => {
    const a = account();
    await register(a, deps);
    await forgotPassword({ email: a.email }, CLIENT, deps);
    const mail = lastMailTo(a.email);
    expect(mail?.text).toContain('https://app.example.com/reset-password?token=');
    expect(queued.some((m) => m.text.includes(a.password))).toBe(false);
  });

  it('a queue outage neither fails registration nor reveals whether an e-mail has an account', async () => {
    queueDown = true;
    try {
      const a = account();
      const registered = await register(a, deps);
      expect(registered.user.email).toBe(a.email);
      const known = await forgotPassword({ email: a.email }, CLIENT, deps);
      const unknown = await forgotPassword({ email: 'nobody@example.com' }, CLIENT, deps);
      expect(known).toEqual(unknown);
      expect(reported).toContain('could not queue the password-reset e-mail');
    } finally {
      queueDown = false;
    }
  });

  it('e-mails one address at most so many reset links an hour from one client and from all, however it is spelt, with the same answer every time', async () => {
    const a = account();
    await register(a, deps);
    const resets = () => queued.filter((m) => m.to === a.email && m.text.includes('reset-password?token=')).length;
    now = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000); // the start of an hour
    const { perClient, total } = RESET_EMAILS_PER_HOUR;
    const answers = [];
    for (const email of [a.email, a.email.toUpperCase(), ` ${a.email} `, a.email, a.email]) answers.push(await forgotPassword({ email }, CLIENT, deps));
    expect(resets()).toBe(perClient);
    // Only the asks a client's allowance admitted count toward the address's total: of the next ones,
    // from other clients, those up to the total are sent.
    for (let i = 0; i < total; i++) answers.push(await forgotPassword({ email: a.email }, `198.51.100.${i}`, deps));
    expect(resets()).toBe(total);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);

    now = new Date(now.getTime() + 3_600_000);
    await forgotPassword({ email: a.email }, CLIENT, deps);
    expect(resets()).toBe(total + 1);
  });

  it('login refuses unknown users and wrong passwords alike', async () => {
    await expect(login({ email: 'ghost@example.com', password: 'x' }, deps)).rejects.toBeInstanceOf(UnauthorizedError);
    const a = account();
    await register(a, deps);
    await expect(login({ email: a.email, password: 'wrong-one' }, deps)).rejects.toThrow('Invalid e-mail or password');
  });
});
