import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { startStandInPool } from '../support/stand-in-pool.ts';

/** A deployment without billing (SIGN_UP_PLAN): new accounts start on the plan it names, active at once. */
let service: TestService;
let pool: Awaited<ReturnType<typeof startStandInPool>>;
beforeAll(async () => {
  pool = await startStandInPool();
  service = await startTestService({ env: { SIGN_UP_PLAN: 'pro', JWT_EXTERNAL_ISSUERS: pool.issuers } });
});
afterAll(async () => {
  await service?.stop();
  pool?.close();
});

it('starts a new account on the sign-up plan, active, with what the plan includes', async () => {
  const { token, apiKey } = await service.signUp('pro-from-the-start@example.com');
  const profile = (await service.api('GET', '/users/profile', { token })).body;
  expect(profile.subscription).toMatchObject({ plan: 'pro', status: 'active' });
  expect(profile.subscription.trialEndDate ?? null).toBeNull();
  expect(profile.subscription.features).toMatchObject({ deepSearch: true, smartSearch: true, agents: -1 });
  // Search, which the trial does not include, answers.
  const search = await service.api('GET', `/search/traces?q=${encodeURIComponent('refund')}`, { apiKey });
  expect(search.status).toBe(200);
});

it('starts an account made on first sight of a hosted sign-in (a Cognito user) on the sign-up plan too', async () => {
  const token = await pool.accessToken(
    { email: 'pro-by-hosted-sign-in@example.com', email_verified: true, given_name: 'Ada', family_name: 'Lovelace' },
    'sub-pro',
  );
  const profile = await service.api('GET', '/users/profile', { token });
  expect(profile.status).toBe(200);
  expect(profile.body.subscription).toMatchObject({ plan: 'pro', status: 'active' });
  expect(profile.body.subscription.features).toMatchObject({ deepSearch: true, smartSearch: true });
});
