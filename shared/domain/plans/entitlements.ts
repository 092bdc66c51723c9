import { ForbiddenError } from '../errors.ts';
import { PLANS, type PlanKey } from './plans.ts';

/** The plan entitlements that switch a feature on or off. */
export type Feature = 'exports' | 'deepSearch' | 'smartSearch' | 'semanticSearch' | 'alerts' | 'evaluations';

/** Refuses (403, naming the feature) a tenant whose plan lacks the feature. */
export function requireFeature(plan: PlanKey, feature: Feature): void {
  if (!PLANS[plan].features[feature]) {
    throw new ForbiddenError(`Your plan (${PLANS[plan].name}) does not include ${feature}; upgrade to use it`);
  }
}
