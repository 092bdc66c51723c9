import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/** A deployment without billing (SIGN_UP_PLAN): new accounts start on the plan it names, active at once. */
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { SIGN_UP_PLAN: 'pro' } });
});
afterAll(() => service?.stop());

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
