import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES } from '#shared/domain/accounts/sign-in-backoff.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Every sign-in checks a password with scrypt (N=2^17), a second or so each on a busy machine. */
const SCRYPT_TIMEOUT_MS = 180_000;

/** Per-account sign-in backoff, on top of the per-address limit (which these tests raise out of the way). */
describe('sign-in backoff per account', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 10_000 }) } });
  });
  afterAll(() => service?.stop());

  const login = (email: string, password: string) => service.api('POST', '/auth/login', { body: { email, password } });
  /** What a client sees of an answer: status, body, and the Retry-After it is told. */
  const seen = (res: { status: number; body: unknown; headers: Headers }) => ({
    status: res.status,
    body: res.body,
    retryAfter: res.headers.get('retry-after'),
  });

  it(
    'locks an address after repeated failures, answering alike whether or not an account has it, and e-mails the owner once',
    async () => {
      await service.signUp('locked@example.com');
      const answers = async (email: string) => {
        const out = [];
        for (let i = 0; i < FREE_FAILURES; i++) out.push(seen(await login(email, 'wrong-password')));
        out.push(seen(await login(email, 'password-123')), seen(await login(email, 'wrong-password')));
        return out;
      };
      const known = await answers('locked@example.com');
      const unknown = await answers('nobody-here@example.com');

      expect(known.slice(0, FREE_FAILURES).every((a) => a.status === 401)).toBe(true);
      // Locked: even the right password is refused, before it is checked.
      expect(known.slice(FREE_FAILURES).map((a) => a.status)).toEqual([429, 429]);
      expect(Number(known[FREE_FAILURES]!.retryAfter)).toBeGreaterThan(50);
      const comparable = (list: typeof known) =>
        list.map((a) => ({ ...a, retryAfter: a.retryAfter === null ? null : 'set', body: JSON.stringify(a.body).replace(/\d+ s/, 'N s') }));
      expect(comparable(unknown)).toEqual(comparable(known));

      await service.drainQueues();
      const notices = (await service.readOutbox()).filter((m) => m.subject?.includes('Sign-ins to your Agent Observability account are paused'));
      expect(notices.map((m) => m.to)).toEqual(['locked@example.com']);
      expect(notices[0]!.text).toMatch(new RegExp(`wrong password for your account ${FREE_FAILURES} times`));
      // Its link opens the console's page for a new password (the API's route takes a POST only).
      const link = /^(http\S+\/forgot-password)$/m.exec(notices[0]!.text!)![1]!;
      expect(link).toBe(`${new URL(service.baseUrl).origin}/forgot-password`);
    },
    SCRYPT_TIMEOUT_MS,
  );

  it(
    'checks at most the free failures of a burst sent at once, then refuses the rest and e-mails the owner once',
    async () => {
      await service.signUp('burst@example.com');
      const burst = await Promise.all(Array.from({ length: 12 }, () => login('burst@example.com', 'wrong-password')));
      const statuses = burst.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(FREE_FAILURES).fill(401), ...Array(12 - FREE_FAILURES).fill(429)]);
      expect((await login('burst@example.com', 'password-123')).status).toBe(429);

      await service.drainQueues();
      const notices = (await service.readOutbox()).filter((m) => m.to === 'burst@example.com' && m.subject?.includes('Sign-ins'));
      expect(notices).toHaveLength(1);
    },
    SCRYPT_TIMEOUT_MS,
  );

  it(
    'forgets the failures on a successful sign-in',
    async () => {
      await service.signUp('forgiven@example.com');
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < FREE_FAILURES - 1; i++) expect((await login('forgiven@example.com', 'wrong-password')).status).toBe(401);
        expect((await login('forgiven@example.com', 'password-123')).status).toBe(200);
      }
    },
    SCRYPT_TIMEOUT_MS,
  );
});
