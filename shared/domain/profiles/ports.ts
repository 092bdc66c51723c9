import type { TraceAnomaly } from './anomalies.ts';
import type { LearningState } from './learning.ts';

/** What the profile found unusual about one trace. */
export interface TraceAnomalies {
  traceId: string;
  agentId: string;
  /** The profile the trace was compared with. */
  profileLearnedAt: string;
  detectedAt: string;
  anomalies: TraceAnomaly[];
}

/** Agent profiles with their learning state, written over the version they were read at. */
export interface ProfilesRepository {
  get(tenantId: string, agentId: string): Promise<LearningState | undefined>;
  /**
   * Writes the state if nobody wrote it since it was read at `state.version` (version 0: never
   * stored); answers it with its new version, or undefined when another writer came first.
   */
  save(state: LearningState): Promise<LearningState | undefined>;
  delete(tenantId: string, agentId: string): Promise<void>;
  /** Up to `limit` agents whose learning cycle is due at `now`, the longest overdue first. */
  due(now: Date, limit: number): Promise<Array<{ tenantId: string; agentId: string }>>;
  /** Idempotent: detecting the same trace again writes the same item. Expires with the trace. */
  putAnomalies(tenantId: string, found: TraceAnomalies, expiresAt: number): Promise<void>;
  anomaliesOf(tenantId: string, traceId: string): Promise<TraceAnomalies | undefined>;
}
