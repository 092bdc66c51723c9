import type { RollupsRepository } from '../../store/rollups.ts';
import type { TraceSummary } from '../spans/summary.ts';
import { bucketStart } from './buckets.ts';
import { rollupOf } from './rollup.ts';

/** The tenant-wide scope; agent scopes use the agent id. */
export const ALL_AGENTS = '*';

/**
 * Counts finished traces into the minute buckets of their agent and of the tenant: one bucket update
 * per scope and minute for the whole batch. A trace is counted once: by the first batch that sees it
 * finished (its claim), and a batch counts once per bucket (its id is remembered there), so retried
 * and duplicated messages change nothing.
 */
export async function rollUpFinishedTraces(
  tenantId: string,
  finished: readonly TraceSummary[],
  batchId: string,
  expiresAt: number,
  rollups: RollupsRepository,
): Promise<void> {
  const claimed: TraceSummary[] = [];
  for (const trace of finished) {
    if (await rollups.claimTrace(tenantId, trace.traceId, batchId, expiresAt)) claimed.push(trace);
  }
  const groups = new Map<string, { scope: string; minute: number; traces: TraceSummary[] }>();
  for (const trace of claimed) {
    const minute = bucketStart(trace.startTimeMs, 'minute');
    for (const scope of trace.agentId ? [ALL_AGENTS, trace.agentId] : [ALL_AGENTS]) {
      const key = `${scope}|${minute}`;
      const group = groups.get(key) ?? { scope, minute, traces: [] };
      group.traces.push(trace);
      groups.set(key, group);
    }
  }
  for (const { scope, minute, traces } of groups.values()) {
    await rollups.applyToMinute(tenantId, scope, minute, rollupOf(traces), batchId, expiresAt);
    await rollups.markDirty(tenantId, scope, bucketStart(minute, 'hour'), expiresAt);
  }
}
