import * as z from 'zod';
import { AGENT_SOURCES } from '../../domain/agents/ports.ts';
import { CHANNELS, LLM_ALERT_TYPES, SEVERITIES, THRESHOLD_ALERT_TYPES } from '../../domain/alerts/config.ts';
import { ALERT_STATUSES } from '../../domain/alerts/lifecycle.ts';
import { ALERT_CATEGORIES } from '../../domain/alerts/ports.ts';
import { ALERT_TYPES } from '../../domain/alerts/service.ts';
import { ANCHOR_METRICS, ANCHOR_STATUSES } from '../../domain/profiles/anchors.ts';
import { LEARN_REASONS, PHASES } from '../../domain/profiles/learning.ts';
import { MATURITY_LEVELS, SEASONALITIES, TRENDS, UNUSUAL_TOOL_USAGE_KINDS, WEEKDAYS } from '../../domain/profiles/profile.ts';
import { agentMetrics } from './analytics.ts';
import { count, fraction, isoDateTime, usageAmount } from './common.ts';

const typeOptions = z.strictObject({
  enabled: z.boolean(),
  severity: z.enum(SEVERITIES),
  channels: z.array(z.enum(CHANNELS)),
  cooldownMinutes: count,
});

/** The alert configuration in force: the defaults with what the tenant set merged over them. */
export const alertConfig = z.strictObject({
  llmAnalysis: z.strictObject({
    enabled: z.boolean(),
    samplingRate: fraction,
    alertTypes: z.record(z.enum(LLM_ALERT_TYPES), typeOptions.extend({ threshold: fraction })),
  }),
  thresholds: z.strictObject({
    duration: z.number().nonnegative(),
    inputTokens: z.number().nonnegative(),
    outputTokens: z.number().nonnegative(),
    cost: z.number().nonnegative(),
    timeout: z.number().nonnegative(),
  }),
  alertTypes: z.record(z.enum(THRESHOLD_ALERT_TYPES), typeOptions),
  contacts: z.strictObject({
    email: z.array(z.strictObject({ address: z.string(), enabled: z.boolean() })),
    sms: z.array(z.strictObject({ phoneNumber: z.string(), enabled: z.boolean() })),
  }),
});

export const agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  profileSettings: z.strictObject({ learningEnabled: z.boolean() }),
  /** `implicit`: created on first sight of its name in ingested data; `explicit`: by `POST /agents`. */
  source: z.enum(AGENT_SOURCES),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  /** When its latest trace started. */
  lastSeenAt: isoDateTime.nullable(),
  metrics: agentMetrics,
  alertConfig,
});

export const alert = z.strictObject({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  type: z.enum(ALERT_TYPES),
  category: z.enum(ALERT_CATEGORIES),
  severity: z.enum(SEVERITIES),
  status: z.enum(ALERT_STATUSES),
  message: z.string(),
  value: z.number().nullable(),
  threshold: z.number().nullable(),
  /** The judge's reasoning, for LLM-analysed alerts. */
  reasoning: z.string().nullable(),
  occurrenceCount: z.number().int().positive(),
  firstSeenAt: isoDateTime,
  lastSeenAt: isoDateTime,
  /** The latest traces it occurred in, newest first. */
  traceIds: z.array(z.string()),
  acknowledgedAt: isoDateTime.nullable(),
  resolvedAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const alertSummary = z.strictObject({
  total: count,
  open: count,
  totalExact: z
    .boolean()
    .describe(
      'False when the range held more alerts than the summary reads (5,000 of each status, the latest occurrences first): the counts are then of those',
    ),
  agents: z.array(
    z.strictObject({
      agentId: z.string(),
      agentName: z.string(),
      total: count,
      byStatus: z.record(z.enum(ALERT_STATUSES), count),
      /** Only the types that occurred. */
      byType: z.partialRecord(z.enum(ALERT_TYPES), count),
      bySeverity: z.record(z.enum(SEVERITIES), count),
    }),
  ),
});

const agentProfile = z.strictObject({
  identity: z.strictObject({ useCase: z.string(), maturityLevel: z.enum(MATURITY_LEVELS), behaviouralSummary: z.string() }),
  toolPatterns: z.strictObject({
    distribution: z.array(z.strictObject({ tool: z.string(), calls: count, callShare: fraction, traceRate: fraction, errorRate: fraction })),
    commonSequences: z.array(z.strictObject({ tools: z.array(z.string()), traceRate: fraction })),
    anomalousUsage: z.array(z.strictObject({ tool: z.string(), kind: z.enum(UNUSUAL_TOOL_USAGE_KINDS), detail: z.string() })),
  }),
  errorPatterns: z.strictObject({
    rate: fraction,
    commonTypes: z.array(z.strictObject({ type: z.string(), share: fraction })),
    trend: z.enum(TRENDS),
  }),
  temporalPatterns: z.strictObject({
    timezone: z.literal('UTC'),
    /** Share of the traces per hour of the day, index = UTC hour. */
    volumeByHour: z.array(fraction).length(24),
    volumeByWeekday: z.record(z.enum(WEEKDAYS), fraction),
    peakHours: z.array(z.number().int().min(0).max(23)),
    peakWeekdays: z.array(z.enum(WEEKDAYS)),
    seasonality: z.enum(SEASONALITIES),
  }),
  volumeCharacteristics: z.strictObject({
    dailyAverage: z.number().nonnegative(),
    busiestDay: count,
    sessionLength: z.strictObject({ tracesPerSession: z.number().nullable(), durationMs: z.number().nullable() }),
    typicalLatency: z.strictObject({ p50Ms: z.number().nullable(), p95Ms: z.number().nullable(), averageMs: z.number().nullable() }),
    costPerTrace: usageAmount,
    tokensPerTrace: usageAmount,
  }),
  insights: z.array(z.string()),
  basis: z.strictObject({ startDate: isoDateTime, endDate: isoDateTime, traceCount: count, sampledTraces: count, activeDays: count }),
  /** `template` or `bedrock:<model id>`. */
  narratedBy: z.string(),
  learnedAt: isoDateTime,
  /** Set by a manual edit, until the next learning cycle overwrites the profile. */
  editedAt: isoDateTime.nullable(),
});

const anchor = z.strictObject({
  id: z.string(),
  metric: z.enum(ANCHOR_METRICS),
  /** The tool of a `toolUsageRate` anchor. */
  tool: z.string().nullable(),
  description: z.string(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  status: z.enum(ANCHOR_STATUSES),
  lastValue: z.number().nullable(),
  lastSampleSize: count,
  lastEvaluatedAt: isoDateTime.nullable(),
});

/** The answer of every profile endpoint: the profile (null before the first), its anchors and the learning state. */
export const profileView = z.strictObject({
  agentId: z.string(),
  agentName: z.string(),
  phase: z.enum(PHASES),
  learningEnabled: z.boolean(),
  profile: agentProfile.nullable(),
  anchors: z.array(anchor),
  lastLearnedAt: isoDateTime.nullable(),
  lastEvaluatedAt: isoDateTime.nullable(),
  nextLearningAt: isoDateTime.nullable(),
  learning: z.strictObject({
    trainingStartedAt: isoDateTime.nullable(),
    measuredUntil: isoDateTime.nullable(),
    lastReason: z.enum(LEARN_REASONS).nullable(),
    bootstrapCycles: count,
    stableCycles: count,
    lastComparison: z.strictObject({ at: isoDateTime, changes: z.array(z.string()) }).nullable(),
    lastDrift: z.strictObject({ at: isoDateTime, reasons: z.array(z.string()), relearned: z.boolean() }).nullable(),
  }),
});
