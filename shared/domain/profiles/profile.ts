/**
 * The agent profile (spec: Agent profile): a behavioural baseline learned from an agent's traces.
 * Statistics come from rollups and a sample of traces; the narrative parts (use case, behavioural
 * summary, insights) from a narrator over those statistics.
 */

export const MATURITY_LEVELS = ['new', 'developing', 'established'] as const;
export type MaturityLevel = (typeof MATURITY_LEVELS)[number];

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const TRENDS = ['rising', 'falling', 'stable', 'unknown'] as const;
export type Trend = (typeof TRENDS)[number];
export const SEASONALITIES = ['none', 'daily', 'weekly', 'daily-and-weekly', 'insufficient-data'] as const;
export type Seasonality = (typeof SEASONALITIES)[number];

export const UNUSUAL_TOOL_USAGE_KINDS = ['rare', 'failure-prone', 'repeated'] as const;

export interface ToolUsage {
  tool: string;
  calls: number;
  /** Of all sampled tool calls. */
  callShare: number;
  /** Of the sampled traces: how many call the tool at least once. */
  traceRate: number;
  /** Of the tool's calls. */
  errorRate: number;
}

export interface ToolSequence {
  /** Consecutive distinct tools, in call order. */
  tools: string[];
  /** Of the sampled traces: how many contain the sequence. */
  traceRate: number;
}

export interface UnusualToolUsage {
  tool: string;
  kind: (typeof UNUSUAL_TOOL_USAGE_KINDS)[number];
  detail: string;
}

export interface ErrorTypeShare {
  type: string;
  /** Of the error types the sampled failed traces name (a trace naming two counts for both). */
  share: number;
}

export interface ToolPatterns {
  distribution: ToolUsage[];
  commonSequences: ToolSequence[];
  anomalousUsage: UnusualToolUsage[];
}

export interface ErrorPatterns {
  /** Failed traces of all traces in the window. */
  rate: number;
  commonTypes: ErrorTypeShare[];
  /** The error rate of the later half of the active period against the earlier half. */
  trend: Trend;
}

export interface TemporalPatterns {
  timezone: 'UTC';
  /** Share of the traces per hour of the day (index = UTC hour). */
  volumeByHour: number[];
  volumeByWeekday: Record<Weekday, number>;
  peakHours: number[];
  peakWeekdays: Weekday[];
  seasonality: Seasonality;
}

export interface VolumeCharacteristics {
  dailyAverage: number;
  busiestDay: number;
  sessionLength: { tracesPerSession: number | null; durationMs: number | null };
  typicalLatency: { p50Ms: number | null; p95Ms: number | null; averageMs: number | null };
  costPerTrace: number;
  tokensPerTrace: number;
}

/** What the statistics were computed from. */
export interface ProfileBasis {
  startDate: string;
  endDate: string;
  traceCount: number;
  sampledTraces: number;
  activeDays: number;
}

/** Everything of a profile that is computed, not narrated. */
/** What a narrator writes about the statistics (`profileNarrative` in narrative.ts validates it). */
export interface ProfileNarrative {
  useCase: string;
  behaviouralSummary: string;
  insights: string[];
}

export interface ProfileStatistics {
  basis: ProfileBasis;
  maturityLevel: MaturityLevel;
  /** The names traces most often carry, for the use case. */
  commonTraceNames: string[];
  toolPatterns: ToolPatterns;
  errorPatterns: ErrorPatterns;
  temporalPatterns: TemporalPatterns;
  volumeCharacteristics: VolumeCharacteristics;
}

export interface AgentProfile {
  identity: { useCase: string; maturityLevel: MaturityLevel; behaviouralSummary: string };
  toolPatterns: ToolPatterns;
  errorPatterns: ErrorPatterns;
  temporalPatterns: TemporalPatterns;
  volumeCharacteristics: VolumeCharacteristics;
  insights: string[];
  basis: ProfileBasis;
  /** Who wrote the narrative parts: `template` or `bedrock:<model id>`. */
  narratedBy: string;
  learnedAt: string;
  /** Set by a manual edit; cleared when a learning cycle overwrites the profile. */
  editedAt: string | null;
}

export function assembleProfile(statistics: ProfileStatistics, narrative: ProfileNarrative, narratedBy: string, now: Date): AgentProfile {
  return {
    identity: { useCase: narrative.useCase, maturityLevel: statistics.maturityLevel, behaviouralSummary: narrative.behaviouralSummary },
    toolPatterns: statistics.toolPatterns,
    errorPatterns: statistics.errorPatterns,
    temporalPatterns: statistics.temporalPatterns,
    volumeCharacteristics: statistics.volumeCharacteristics,
    insights: narrative.insights,
    basis: statistics.basis,
    narratedBy,
    learnedAt: now.toISOString(),
    editedAt: null,
  };
}
