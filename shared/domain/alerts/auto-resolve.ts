import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';
import { changeAlertStatus } from './service.ts';

const PAGE = 100;

/**
 * Resolves every active alert whose condition has not recurred for `quietHours` (spec: what resolves
 * an alert is not shown; this is our answer, besides PUT .../resolve). Also forgets index entries of
 * alerts resolved by hand or deleted meanwhile, and lists by their latest occurrence the active alerts
 * last written while the lists were by creation time.
 */
export async function autoResolveQuietAlerts(deps: { store: Pick<Store, 'alerts' | 'agents'>; clock: Clock; quietHours: number }) {
  const cutoff = new Date(deps.clock.now().getTime() - deps.quietHours * 3_600_000).toISOString();
  let startAfter: Record<string, unknown> | undefined;
  let checked = 0;
  let resolved = 0;
  do {
    const { refs, next } = await deps.store.alerts.activePage(startAfter, PAGE);
    for (const { tenantId, alertId } of refs) {
      checked += 1;
      const alert = await deps.store.alerts.getListed(tenantId, alertId);
      if (!alert || alert.status === 'resolved') await deps.store.alerts.forgetActive(tenantId, alertId);
      else if (alert.lastSeenAt < cutoff) {
        await changeAlertStatus(tenantId, alertId, 'resolve', deps);
        resolved += 1;
      }
    }
    startAfter = next;
  } while (startAfter);
  return { checked, resolved };
}
