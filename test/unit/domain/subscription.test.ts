import { describe, expect, it } from 'vitest';
import { isWithinLimit, PLANS } from '#shared/domain/plans/plans.ts';
import { currentPeriod, newTrialSubscription, subscriptionView } from '#shared/domain/plans/subscription.ts';

const at = (iso: string) => new Date(iso);

describe('plans', () => {
  it('match the documented entitlements', () => {
    expect(PLANS.trial.features).toMatchObject({ spans: 10_000, agents: 10, retention: 14, trialDays: 14, deepSearch: false, support: 'community' });
    expect(PLANS.starter.features).toMatchObject({ spans: 100_000, agents: 25, retention: 30, deepSearch: true, semanticSearch: false, support: 'email' });
    expect(PLANS.pro.features).toMatchObject({ spans: 1_000_000, agents: -1, retention: 90, smartSearch: true, support: 'priority' });
    expect(PLANS.trial.name).toBe('Free Trial');
  });

  it('treats -1 as unlimited', () => {
    expect(isWithinLimit(5, -1)).toBe(true);
    expect(isWithinLimit(9, 10)).toBe(true);
    expect(isWithinLimit(10, 10)).toBe(false);
  });
});

describe('billing periods', () => {
  it('a trial is one period from its start to its end', () => {
    const sub = newTrialSubscription(at('2026-01-10T08:00:00Z'));
    expect(currentPeriod(sub, at('2026-01-12T00:00:00Z'))).toEqual({
      start: at('2026-01-10T08:00:00Z'),
      end: at('2026-01-24T08:00:00Z'),
    });
  });

  it('paid plans roll over monthly on the anchor day, clamped to short months', () => {
    const sub = { ...newTrialSubscription(at('2026-01-31T00:00:00Z')), plan: 'pro' as const, status: 'active' as const, trialEndsAt: null };
    expect(currentPeriod(sub, at('2026-02-15T00:00:00Z'))).toEqual({ start: at('2026-01-31T00:00:00Z'), end: at('2026-02-28T00:00:00Z') });
    expect(currentPeriod(sub, at('2026-03-01T00:00:00Z')).start).toEqual(at('2026-02-28T00:00:00Z'));
    expect(currentPeriod(sub, at('2026-03-31T00:00:00Z')).start).toEqual(at('2026-03-31T00:00:00Z'));
  });
});

describe('subscription view', () => {
  it('has the trial-only fields for a trial, counting whole days left', () => {
    const sub = newTrialSubscription(at('2026-01-01T00:00:00Z'));
    const view = subscriptionView(sub, 2500, at('2026-01-05T12:00:00Z'));
    expect(view).toMatchObject({
      plan: 'trial',
      planName: 'Free Trial',
      status: 'trialing',
      spansUsed: 2500,
      spansLimit: 10_000,
      usagePercentage: 25,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: '2026-01-15T00:00:00.000Z',
      trialEndDate: '2026-01-15T00:00:00.000Z',
      trialDaysRemaining: 10,
      trialExpired: false,
    });
  });

  it('reports an expired trial with zero days left and caps usage at 100%', () => {
    const view = subscriptionView(newTrialSubscription(at('2026-01-01T00:00:00Z')), 20_000, at('2026-02-01T00:00:00Z'));
    expect(view).toMatchObject({ trialExpired: true, trialDaysRemaining: 0, usagePercentage: 100 });
  });

  it('omits the trial fields on paid plans and shows 0% for unlimited limits', () => {
    const sub = { ...newTrialSubscription(at('2026-01-01T00:00:00Z')), plan: 'pro' as const, status: 'active' as const, trialEndsAt: null };
    const view = subscriptionView(sub, 123, at('2026-01-02T00:00:00Z'));
    expect(view).not.toHaveProperty('trialEndDate');
    expect(view).not.toHaveProperty('trialExpired');
    expect(view.spansLimit).toBe(1_000_000);
  });
});
