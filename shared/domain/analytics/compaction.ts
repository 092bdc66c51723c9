import { PLANS } from '../plans/plans.ts';
import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';

const PAGE = 100;
const DAY_SECONDS = 86_400;

/** Recomputes the dirty hour and day buckets of settled hours until none is left or the time budget is spent. */
export async function compactRollups(deps: { store: Pick<Store, 'rollups' | 'tenants'>; clock: Clock }, budgetMs: number) {
  const deadline = deps.clock.now().getTime() + budgetMs;
  const retention = new Map<string, Promise<number>>();
  const expiresAtOf = (tenantId: string) => {
    if (!retention.has(tenantId)) {
      retention.set(
        tenantId,
        deps.store.tenants.get(tenantId).then((t) => {
          const days = t ? PLANS[t.subscription.plan].features.retention : 1;
          return Math.floor(deps.clock.now().getTime() / 1000) + days * DAY_SECONDS;
        }),
      );
    }
    return retention.get(tenantId)!;
  };
  let compacted = 0;
  for (;;) {
    const done = await deps.store.rollups.compactDirty(PAGE, expiresAtOf, deps.clock.now().getTime());
    compacted += done;
    if (done < PAGE || deps.clock.now().getTime() > deadline) return { compacted };
  }
}
