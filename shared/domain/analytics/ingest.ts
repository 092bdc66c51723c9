import type { TraceSummary } from '../spans/summary.ts';
import type { RollupsRepository } from './ports.ts';
import { tracesByBucket } from './rollup.ts';

/**
 * Counts finished traces into the tenant's minute buckets: one bucket update per minute for the
 * whole batch. The buckets remember the traces they counted, so retried and duplicated messages,
 * and a trace sent again in another message, change nothing; `batchId` is not needed for that.
 */
export async function rollUpFinishedTraces(tenantId: string, finished: readonly TraceSummary[], expiresAt: number, rollups: RollupsRepository): Promise<void> {
  for (const [minute, traces] of tracesByBucket(finished, 'minute')) await rollups.countTraces(tenantId, minute, traces, expiresAt);
}
