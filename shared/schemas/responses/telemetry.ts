import * as z from 'zod';
import { ANOMALY_TYPES } from '../../domain/profiles/anomalies.ts';
import { LOG_LEVELS, SPAN_KINDS, SPAN_STATUSES } from '../../domain/spans/model.ts';
import { TRACE_STATUSES } from '../../domain/spans/summary.ts';
import { count, isoDateTime, jsonObject, usageAmount } from './common.ts';

/** What `POST /spans`, `/logs`, `/signals` and `/signals/batch` accepted for processing (202). */
export const acceptedTelemetry = z.strictObject({
  accepted: count,
  rejected: count,
  errors: z.array(z.strictObject({ index: count, message: z.string() })),
});

/** OTLP/JSON encodes int64 as a decimal string. */
const int64 = z.string().regex(/^\d+$/);

/** ExportTraceServiceResponse in OTLP/JSON: empty when everything was accepted. */
export const exportTraceServiceResponse = z.strictObject({
  partialSuccess: z.strictObject({ rejectedSpans: int64, errorMessage: z.string() }).optional(),
});

/** ExportLogsServiceResponse in OTLP/JSON: empty when everything was accepted. */
export const exportLogsServiceResponse = z.strictObject({
  partialSuccess: z.strictObject({ rejectedLogRecords: int64, errorMessage: z.string() }).optional(),
});

/** A trace as lists show it: the summary of its spans. */
export const traceSummary = z.strictObject({
  traceId: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  name: z.string(),
  status: z.enum(TRACE_STATUSES),
  startTime: isoDateTime,
  endTime: isoDateTime.nullable(),
  durationMs: z.number().nullable(),
  spanCount: count,
  errorCount: count,
  inputTokens: usageAmount,
  outputTokens: usageAmount,
  totalTokens: usageAmount,
  cost: usageAmount,
  model: z.string().nullable(),
  models: z.array(z.string()),
  /** The tools its spans called and the error types they reported (what `toolName` and `errorType` match). */
  toolNames: z.array(z.string()),
  errorTypes: z.array(z.string()),
  /** Its spans' tags and their metadata's scalar values as text (what `tag` and `metadata` match). */
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.string()),
  /** The types of the alerts raised on it (`hasAlert`). */
  alertTypes: z.array(z.string()),
  sessionId: z.string().nullable(),
  userId: z.string().nullable(),
  experimentId: z.string().nullable(),
  variant: z.string().nullable(),
  /** The root span has arrived and ended. */
  complete: z.boolean(),
  /**
   * When the service closed the trace without its root having finished (no span arrived for an hour):
   * listed and counted by its status from then on. Null for a trace that finished or is still open.
   */
  closedAt: isoDateTime.nullable(),
});

export const span = z.strictObject({
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  /** 0 for the root (and for orphans); a child is one deeper than its parent. */
  depth: count,
  traceId: z.string(),
  name: z.string(),
  kind: z.enum(SPAN_KINDS),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  startTime: isoDateTime,
  endTime: isoDateTime.nullable(),
  durationMs: z.number().nullable(),
  status: z.enum(SPAN_STATUSES),
  statusMessage: z.string().nullable(),
  errorType: z.string().nullable(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  operation: z.string().nullable(),
  inputTokens: usageAmount.nullable(),
  outputTokens: usageAmount.nullable(),
  cachedInputTokens: usageAmount.nullable(),
  /** Part of outputTokens the model spent reasoning. */
  reasoningTokens: usageAmount.nullable(),
  cost: usageAmount.nullable(),
  /** The cost came from the price table, not from the caller. */
  costEstimated: z.boolean(),
  input: z.string().nullable(),
  output: z.string().nullable(),
  toolName: z.string().nullable(),
  sessionId: z.string().nullable(),
  userId: z.string().nullable(),
  experimentId: z.string().nullable(),
  variant: z.string().nullable(),
  tags: z.array(z.string()),
  /** What the caller attached as metadata (Langfuse metadata, OpenInference `metadata`, AI SDK telemetry metadata, Traceloop association properties). */
  metadata: jsonObject,
  attributes: jsonObject,
  events: z.array(z.strictObject({ name: z.string(), time: isoDateTime, attributes: jsonObject })),
});

export const signal = z.strictObject({
  id: z.string(),
  signalName: z.string(),
  value: z.number(),
  traceId: z.string().nullable(),
  spanId: z.string().nullable(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  metadata: jsonObject,
  timestamp: isoDateTime,
});

export const log = z.strictObject({
  id: z.string(),
  timestamp: isoDateTime,
  level: z.enum(LOG_LEVELS),
  message: z.string(),
  /** The OpenTelemetry event name of an event record, e.g. `gen_ai.client.inference.operation.details`. */
  eventName: z.string().nullable(),
  traceId: z.string().nullable(),
  spanId: z.string().nullable(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  attributes: jsonObject,
});

/** `GET /spans/traces/:traceId`: the summary, its anomalies against the agent's profile, its spans (depth first), signals and logs. */
export const traceDetail = traceSummary.extend({
  anomalies: z.array(z.strictObject({ type: z.enum(ANOMALY_TYPES), message: z.string() })),
  spans: z.array(span),
  spansNextCursor: z
    .string()
    .nullable()
    .describe("Where the trace's spans go on when they did not all fit in this answer: pass it as `cursor`; null once every span is given"),
  signals: z.array(signal),
  signalsLeftOut: z.number().int().min(0).describe('Signals of the trace that did not fit in the answer (GET /signals?traceId= lists them all)'),
  logs: z.array(log),
  logsLeftOut: z.number().int().min(0).describe('Logs of the trace that did not fit in the answer (GET /logs?traceId= lists them all)'),
});

export const filterOptions = z.strictObject({
  agents: z.array(z.strictObject({ id: z.string(), name: z.string() })),
  models: z.array(z.string()),
  statuses: z.array(z.enum(TRACE_STATUSES)),
  spanKinds: z.array(z.enum(SPAN_KINDS)),
  toolNames: z.array(z.string()),
  errorTypes: z.array(z.string()),
  traceNames: z.array(z.string()),
  tags: z.array(z.string()),
  signalNames: z.array(z.string()),
});

export const signalSummary = z.strictObject({
  startDate: isoDateTime,
  endDate: isoDateTime,
  groups: z.array(
    z.strictObject({
      signalName: z.string(),
      agentId: z.string().nullable(),
      agentName: z.string().nullable(),
      count: z.number().int().positive(),
      avg: z.number(),
      min: z.number(),
      max: z.number(),
      p50: z.number(),
      p95: z.number(),
    }),
  ),
});

/** A session (conversation) with its figures. */
export const session = z.strictObject({
  sessionId: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  userId: z.string().nullable(),
  firstSeenAt: isoDateTime,
  lastSeenAt: isoDateTime,
  traceCount: count,
  errorCount: count,
  inputTokens: usageAmount,
  outputTokens: usageAmount,
  totalTokens: usageAmount,
  cost: usageAmount,
  durationMs: z.number().nonnegative(),
});

/** `GET /sessions/:sessionId`: the session and a page of its traces in start order, each with its input and output. */
export const sessionDetail = session.extend({
  figuresRefreshDueAt: isoDateTime
    .nullable()
    .describe(
      'When the recount queued for a session of more than 100 traces is due: until it has run, the traces stored since the figures were computed are listed but not counted. Null when none is queued or still coming.',
    ),
  traces: z.array(traceSummary.extend({ input: z.string().nullable(), output: z.string().nullable() })),
});
