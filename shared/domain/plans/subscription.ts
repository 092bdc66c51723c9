import { PLANS, type PlanKey, type SubscriptionStatus, TRIAL_DAYS, UNLIMITED } from './plans.ts';

const DAY_MS = 86_400_000;

/** What the store keeps of a tenant's subscription. */
export interface SubscriptionRecord {
  plan: PlanKey;
  status: SubscriptionStatus;
  /** ISO 8601; billing periods are whole months counted from this instant. */
  periodAnchor: string;
  trialEndsAt: string | null;
  cancelAtPeriodEnd: boolean;
}

/** A new account's subscription: the trial, or a paid plan active from now (a deployment without billing, `SIGN_UP_PLAN`). */
export function newSubscription(now: Date, plan: PlanKey): SubscriptionRecord {
  if (plan === 'trial') return newTrialSubscription(now);
  return { plan, status: 'active', periodAnchor: now.toISOString(), trialEndsAt: null, cancelAtPeriodEnd: false };
}

export function newTrialSubscription(now: Date): SubscriptionRecord {
  return {
    plan: 'trial',
    status: 'trialing',
    periodAnchor: now.toISOString(),
    trialEndsAt: new Date(now.getTime() + TRIAL_DAYS * DAY_MS).toISOString(),
    cancelAtPeriodEnd: false,
  };
}

export interface BillingPeriod {
  start: Date;
  end: Date;
}

function addMonthsClamped(anchor: Date, months: number): Date {
  const d = new Date(anchor.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

/**
 * The period `now` falls in. A trial has one period, from its start to its end (and stays there once
 * expired); paid plans roll over monthly on the anchor's day, so usage resets without a batch job.
 */
export function currentPeriod(sub: SubscriptionRecord, now: Date): BillingPeriod {
  const anchor = new Date(sub.periodAnchor);
  if (sub.plan === 'trial' && sub.trialEndsAt) return { start: anchor, end: new Date(sub.trialEndsAt) };
  let months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  if (addMonthsClamped(anchor, months) > now) months -= 1;
  months = Math.max(0, months);
  return { start: addMonthsClamped(anchor, months), end: addMonthsClamped(anchor, months + 1) };
}

/** The subscription object of `GET /users/profile` (spec, Resources). */
export function subscriptionView(sub: SubscriptionRecord, spansUsed: number, now: Date) {
  const plan = PLANS[sub.plan];
  const period = currentPeriod(sub, now);
  const spansLimit = plan.features.spans;
  const usagePercentage = spansLimit === UNLIMITED || spansLimit === 0 ? 0 : Math.min(100, Math.round((spansUsed / spansLimit) * 10_000) / 100);
  const view = {
    plan: plan.key,
    planName: plan.name,
    status: sub.status,
    spansUsed,
    spansLimit,
    usagePercentage,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    currentPeriodEnd: period.end.toISOString(),
    features: { ...plan.features },
  };
  if (sub.plan !== 'trial') return view;
  const trialEnd = sub.trialEndsAt ? new Date(sub.trialEndsAt) : period.end;
  const msLeft = trialEnd.getTime() - now.getTime();
  return {
    ...view,
    trialEndDate: trialEnd.toISOString(),
    trialDaysRemaining: Math.max(0, Math.ceil(msLeft / DAY_MS)),
    trialExpired: msLeft <= 0,
  };
}
