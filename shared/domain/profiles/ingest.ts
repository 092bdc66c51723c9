import type { Clock } from '../ports.ts';
import type { StoredSpan, TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import { detectTraceAnomalies } from './anomalies.ts';
import { anomalyBaseline, newLearningState, onTracesArrived } from './learning.ts';

export interface FinishedTrace {
  summary: TraceSummary;
  stored: readonly StoredSpan[];
}

/**
 * The ingest worker's step for the traces a message finished: a pre-profile agent waiting for data
 * gets a learning cycle scheduled; in steady state each trace is checked against the profile and its
 * anomalies are stored with the trace. One profile read per agent per message.
 */
export async function checkTracesAgainstProfiles(
  tenantId: string,
  traces: readonly FinishedTrace[],
  expiresAt: number,
  deps: { store: Pick<Store, 'profiles'>; clock: Clock },
): Promise<void> {
  const now = deps.clock.now();
  const byAgent = new Map<string, FinishedTrace[]>();
  for (const trace of traces) {
    const { agentId } = trace.summary;
    if (agentId) byAgent.set(agentId, [...(byAgent.get(agentId) ?? []), trace]);
  }
  for (const [agentId, agentTraces] of byAgent) {
    const state = (await deps.store.profiles.get(tenantId, agentId)) ?? newLearningState(tenantId, agentId);
    const scheduled = onTracesArrived(state, now);
    // Losing this race is fine: the other writer either scheduled the agent or moved it on.
    if (scheduled) await deps.store.profiles.save(scheduled);
    const profile = anomalyBaseline(state);
    if (!profile) continue;
    for (const { summary, stored } of agentTraces) {
      const anomalies = detectTraceAnomalies(summary, stored, profile);
      if (anomalies.length === 0) continue;
      const found = { traceId: summary.traceId, agentId, profileLearnedAt: profile.learnedAt, detectedAt: now.toISOString(), anomalies };
      await deps.store.profiles.putAnomalies(tenantId, found, expiresAt);
    }
  }
}
