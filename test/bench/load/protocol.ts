import type { PlanKey } from '#shared/domain/plans/plans.ts';
import type { SentTrace } from '../ingest/traces.ts';
import type { Verification } from '../ingest/verify.ts';

/** What the load generator and the service under load (a process of its own, see target.ts) say to each other. */

export interface SeedSpec {
  requests: number;
  spansPerRequest: number;
  anomalyRate: number;
  seed: number;
}

export interface TargetOptions {
  /** RATE_LIMITS of the service: read once per process, which is why each phase gets its own. */
  rateLimits: Record<string, number>;
  plan: PlanKey;
  /** Telemetry stored before the load starts, so that the reads have traces, agents and alerts to read. */
  seed: SeedSpec;
}

/** Ids the read traffic can ask for. */
export interface ReadTargets {
  traceIds: string[];
  agentIds: string[];
  alertIds: string[];
}

export type TargetMessage =
  | {
      type: 'ready';
      baseUrl: string;
      /** The load generator's key; the seeding and the verification use another. */
      apiKey: string;
      /** The user's access token, as a dashboard has it. */
      token: string;
      seededTraces: number;
      readTargets: ReadTargets;
    }
  | { type: 'verified'; drainSeconds: number; verification: Verification }
  | { type: 'failed'; message: string };

export type ControlMessage = { type: 'verify'; accepted: SentTrace[]; sampleSize: number; drainTimeoutMs: number } | { type: 'stop' };
