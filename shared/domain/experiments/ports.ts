import type { PageInput, ReadPage, Total } from '../paging/page.ts';
import type { Variant } from './definition.ts';
import type { ExperimentStatus } from './lifecycle.ts';

export interface ExperimentRecord {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  agentId: string | null;
  variants: Variant[];
  primaryMetric: string;
  trafficPercentage: number;
  status: ExperimentStatus;
  createdAt: string;
  updatedAt: string;
  /** When it first started running. */
  startedAt: string | null;
  stoppedAt: string | null;
}

/** What results need of one finished or unfinished trace tagged with an experiment. */
export interface TraceObservation {
  traceId: string;
  variant: string;
  /** Absent, like `startTimeMs`, on observations recorded before results checked the agent and the stop; those count. */
  agentId?: string | null;
  startTimeMs?: number;
  status: 'ok' | 'error';
  durationMs: number | null;
  totalTokens: number;
  cost: number;
  complete: boolean;
}

/** One signal value counted for an experiment's variant. */
export interface SignalObservation {
  signalId: string;
  traceId: string | null;
  variant: string;
  signalName: string;
  value: number;
  /** Absent, like `timeMs`, on observations recorded before results checked the agent and the stop; those count. */
  agentId?: string | null;
  /** What the experiment's stop is compared with: the start of the trace it counts through, else (tagged in its own metadata) its own time. */
  timeMs?: number;
}

/** What narrows an experiment list. */
export interface ExperimentQuery {
  agentId?: string;
  status?: ExperimentStatus;
  startMs?: number;
  endMs?: number;
}

export interface ExperimentsRepository {
  create(e: ExperimentRecord): Promise<void>;
  get(tenantId: string, experimentId: string, consistent?: boolean): Promise<ExperimentRecord | undefined>;
  /** One page of a tenant's or an agent's experiments, newest first, created within the range. */
  page(tenantId: string, q: ExperimentQuery, page: PageInput): Promise<ReadPage<ExperimentRecord>>;
  count(tenantId: string, q: ExperimentQuery): Promise<Total>;
  /** Replaces the experiment only while it is still in the status it was read in (false: someone moved it first). */
  replaceIfStatus(next: ExperimentRecord, expected: ExperimentStatus): Promise<boolean>;
  /**
   * Records a tagged trace as of a summary computed from the spans written up to `revision` (the
   * latest span write it saw); like the summary itself, an older computation never overwrites a newer one.
   */
  putTraceObservation(tenantId: string, experimentId: string, o: TraceObservation & { revision: number; spanCount: number }, expiresAt: number): Promise<void>;
  /** Idempotent: a signal observation is keyed by the signal's content id. */
  putSignalObservations(tenantId: string, observations: ReadonlyArray<SignalObservation & { experimentId: string }>, expiresAt: number): Promise<void>;
  /** Every trace and signal observed for the experiment. */
  observations(tenantId: string, experimentId: string): Promise<{ traces: TraceObservation[]; signals: SignalObservation[] }>;
}
