import { defaultPorts, type Ports } from '../../shared/adapters/ports.ts';
import { compactRollups } from '../../shared/domain/analytics/compaction.ts';
import { logger } from '../../shared/http/logger.ts';

/** Each run may use most of a minute; the next run (a minute later) continues where it stopped. */
const BUDGET_MS = 45_000;

/** Scheduled every minute: recomputes the hour and day rollups whose minutes changed. */
export const compactionHandler = (getPorts: () => Ports = defaultPorts) => async () => {
  const ports = getPorts();
  const result = await compactRollups({ store: ports.store, clock: ports.clock }, BUDGET_MS);
  if (result.compacted > 0) logger.info('analytics compaction', result);
  return result;
};

export const handler = compactionHandler();
