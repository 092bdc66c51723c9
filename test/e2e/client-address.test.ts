import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESET_EMAILS_PER_HOUR } from '#shared/domain/accounts/users.ts';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#shared/http/client-address.ts';
import { startTestService, type TestService } from '../support/service.ts';

const ORIGIN_SECRET = 'the-console-distributions-origin-secret-e2e';
/** The `auth` tier's limit here: requests a minute per client. */
const AUTH_PER_MINUTE = 5;
const RESET_EMAIL = 'reset-me@example.com';

/**
 * The service behind the console's CloudFront distribution, as the distribution calls it: every
 * request from this test's one socket address, with the viewer's address and the origin secret.
 */
describe('clients behind the console distribution', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { ORIGIN_SECRET, RATE_LIMITS: JSON.stringify({ auth: AUTH_PER_MINUTE }) } });
    // Before the first test spends this socket address's allowance.
    await service.signUp(RESET_EMAIL);
    await service.drainQueues();
  });
  afterAll(() => service?.stop());

  const viaDistribution = (viewer: string, secret = ORIGIN_SECRET) => ({ [VIEWER_ADDRESS_HEADER]: viewer, [ORIGIN_SECRET_HEADER]: secret });
  const askReset = (email: string, headers: Record<string, string> = {}) => service.api('POST', '/auth/forgot-password', { body: { email }, headers });

  /** Waits for the next one-minute window when this one ends within 10 s, so that a burst's count is not cut in two. */
  const freshWindow = async () => {
    const leftMs = 60_000 - (Date.now() % 60_000);
    if (leftMs < 10_000) await new Promise((resolve) => setTimeout(resolve, leftMs + 100));
  };

  it("limits each viewer the distribution vouches for on its own, and a forged viewer by the caller's own address", async () => {
    await freshWindow();
    for (let i = 0; i < AUTH_PER_MINUTE; i++) expect((await askReset('a@example.com', viaDistribution('198.51.100.1'))).status).toBe(200);
    expect((await askReset('a@example.com', viaDistribution('198.51.100.1'))).status).toBe(429);
    // Another console user behind the same edge is not held up by the first.
    expect((await askReset('a@example.com', viaDistribution('198.51.100.2'))).status).toBe(200);
    // One /64 is one client: another address in it shares the first's count.
    for (let i = 0; i < AUTH_PER_MINUTE; i++) expect((await askReset('a@example.com', viaDistribution(`2001:db8:7:7::${i + 1}`))).status).toBe(200);
    expect((await askReset('a@example.com', viaDistribution('2001:db8:7:7:ffff::1'))).status).toBe(429);

    // Without the secret, a claimed viewer address counts nothing: each counts against the caller's own
    // address (which signing up may have counted once already), so they run out together.
    const forged = [];
    for (let i = 0; i <= AUTH_PER_MINUTE; i++) {
      forged.push((await askReset('a@example.com', viaDistribution(`203.0.113.${i + 1}`, 'a-forged-origin-secret-of-the-same-length!'))).status);
    }
    expect(forged).toContain(429);
    expect((await askReset('a@example.com')).status).toBe(429);
  });

  it("gives each viewer its own allowance of reset e-mails to an address, the handler's count too", async () => {
    await freshWindow();
    const email = RESET_EMAIL;
    const resets = async () => (await service.readOutbox()).filter((m) => m.to === email && /reset/i.test(m.subject ?? '')).length;

    for (let i = 0; i <= RESET_EMAILS_PER_HOUR.perClient; i++) expect((await askReset(email, viaDistribution('192.0.2.10'))).status).toBe(200);
    await service.drainQueues();
    expect(await resets()).toBe(RESET_EMAILS_PER_HOUR.perClient);

    expect((await askReset(email, viaDistribution('192.0.2.11'))).status).toBe(200);
    await service.drainQueues();
    expect(await resets()).toBe(RESET_EMAILS_PER_HOUR.perClient + 1);
  });
});
