import { compactRollups } from '#shared/domain/analytics/compaction.ts';
import type { Ports } from '#shared/domain/store.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { portsOf } from '#shared/wiring/ports.ts';

/** Each run may use most of a minute; the next run (a minute later) continues where it stopped. */
const BUDGET_MS = 45_000;

/** Scheduled every minute: recomputes the hour and day rollups whose minutes changed. */
export const compactionHandler = (getPorts: () => Ports<'rollups' | 'tenants'> = portsOf({ rollups: rollupsRepository, tenants: tenantsRepository })) =>
  instrumented(async () => {
    const ports = getPorts();
    const result = await compactRollups({ store: ports.store, clock: ports.clock }, BUDGET_MS);
    if (result.compacted > 0) logger.info('analytics compaction', result);
    return result;
  });

export const handler = compactionHandler();
