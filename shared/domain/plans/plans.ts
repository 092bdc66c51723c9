/** Plans and their entitlements, defined once. `-1` means unlimited (spec, Limits). */
export const PLAN_KEYS = ['trial', 'starter', 'pro'] as const;
export type PlanKey = (typeof PLAN_KEYS)[number];
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'canceled', 'past_due'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const SUPPORT_LEVELS = ['community', 'email', 'priority'] as const;
export type SupportLevel = (typeof SUPPORT_LEVELS)[number];

export interface PlanFeatures {
  spans: number;
  agents: number;
  retention: number;
  alerts: boolean;
  evaluations: boolean;
  exports: boolean;
  deepSearch: boolean;
  semanticSearch: boolean;
  smartSearch: boolean;
  customLLMLogic: boolean;
  modelTraining: boolean;
  sso: boolean;
  rbac: boolean;
  support: SupportLevel;
  trialDays: number;
}

export interface Plan {
  key: PlanKey;
  name: string;
  features: PlanFeatures;
}

export const UNLIMITED = -1;
export const TRIAL_DAYS = 14;

const base = {
  alerts: true,
  evaluations: true,
  exports: true,
  customLLMLogic: false,
  modelTraining: false,
  sso: false,
  rbac: false,
  trialDays: TRIAL_DAYS,
} as const;

export const PLANS: Readonly<Record<PlanKey, Plan>> = {
  trial: {
    key: 'trial',
    name: 'Free Trial',
    features: {
      ...base,
      spans: 10_000,
      agents: 10,
      retention: 14,
      deepSearch: false,
      semanticSearch: false,
      smartSearch: false,
      support: 'community',
    },
  },
  starter: {
    key: 'starter',
    name: 'Starter',
    features: {
      ...base,
      spans: 100_000,
      agents: 25,
      retention: 30,
      deepSearch: true,
      semanticSearch: false,
      smartSearch: false,
      support: 'email',
    },
  },
  pro: {
    key: 'pro',
    name: 'Pro',
    features: {
      ...base,
      spans: 1_000_000,
      agents: UNLIMITED,
      retention: 90,
      deepSearch: true,
      semanticSearch: true,
      smartSearch: true,
      support: 'priority',
    },
  },
};

/** The longest any plan keeps data: what outlives a tenant's data by design (e.g. a deleted agent's marker) lasts this long. */
export const LONGEST_RETENTION_DAYS = Math.max(...Object.values(PLANS).map((plan) => plan.features.retention));

export const isWithinLimit = (used: number, limit: number): boolean => limit === UNLIMITED || used < limit;
