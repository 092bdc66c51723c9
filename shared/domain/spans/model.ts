/**
 * The canonical span every ingestion path produces (native JSON, OTLP JSON, OTLP protobuf) and the
 * ingest worker stores. Times are epoch milliseconds (OTLP nanoseconds are truncated to ms).
 */
export const SPAN_KINDS = ['agent', 'llm', 'tool', 'retrieval', 'chain', 'embedding', 'other'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export const SPAN_STATUSES = ['ok', 'error', 'unset'] as const;
export type SpanStatus = (typeof SPAN_STATUSES)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

export interface SpanEvent {
  name: string;
  timeMs: number;
  attributes: Record<string, AttributeValue>;
}

export interface CanonicalSpan {
  /** Lower-case hex for OTLP (32 chars); native spans may use any id of 1–128 safe characters. */
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  /** Agent name as sent; the worker turns it into an agent id (created on first sight). */
  agentName: string | null;
  /**
   * The name is only the OTLP resource's `service.name`, not a `gen_ai.agent.name`. It speaks for the
   * trace only on a root span; on a child span the trace's root decides the agent.
   */
  agentNameFromService: boolean;
  startTimeMs: number;
  endTimeMs: number | null;
  status: SpanStatus;
  statusMessage: string | null;
  errorType: string | null;
  model: string | null;
  provider: string | null;
  operation: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  /** Part of outputTokens the model spent reasoning. */
  reasoningTokens: number | null;
  /** As sent by the caller; when null the worker estimates it from the price table. */
  cost: number | null;
  input: string | null;
  output: string | null;
  toolName: string | null;
  sessionId: string | null;
  userId: string | null;
  experimentId: string | null;
  variant: string | null;
  /** Labels to filter by (Langfuse trace tags, OpenInference `tag.tags`, …). */
  tags: string[];
  /** What the caller attached to the span or its trace as metadata, apart from the instrumentation's attributes. */
  metadata: Record<string, AttributeValue>;
  attributes: Record<string, AttributeValue>;
  events: SpanEvent[];
}

/** A value that an evaluation or SDK attached to a trace or span (spec: signals). */
export interface CanonicalSignal {
  signalName: string;
  value: number;
  traceId: string | null;
  spanId: string | null;
  agentName: string | null;
  metadata: Record<string, AttributeValue>;
  timestampMs: number;
  /** Only for a signal sent without a time of its own: see `Arrival`. */
  arrivalKey?: string;
}

export interface CanonicalLog {
  timestampMs: number;
  level: LogLevel;
  message: string;
  /** The OpenTelemetry event name, e.g. `gen_ai.client.inference.operation.details`. */
  eventName: string | null;
  traceId: string | null;
  spanId: string | null;
  agentName: string | null;
  attributes: Record<string, AttributeValue>;
  /** Only for a log sent without a time of its own: see `Arrival`. */
  arrivalKey?: string;
}

/**
 * A request as it arrived. A signal or log sent without a time of its own takes `atMs`, and, as its
 * `arrivalKey`, the request's random id and its position in the request: items are stored under a hash
 * of their content, so identical such items of one request would otherwise be stored as one. The key
 * travels in the queue message, so a redelivered message still stores each of them once.
 */
export interface Arrival {
  atMs: number;
  requestId: string;
}

export const arrivalKeyOf = (arrival: Arrival, position: number | string): string => `${arrival.requestId}#${position}`;

/** The agent a span names with authority (see `agentNameFromService`). */
export const effectiveAgentName = (span: Pick<CanonicalSpan, 'agentName' | 'agentNameFromService' | 'parentSpanId'>): string | null =>
  span.agentNameFromService && span.parentSpanId ? null : span.agentName;

/** The largest token count a span may report (native and OTLP alike). */
export const MAX_TOKEN_COUNT = 1e12;

/** A token count as every ingestion path accepts it: a whole number from 0 to MAX_TOKEN_COUNT. */
export const isTokenCount = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= MAX_TOKEN_COUNT;

/**
 * DynamoDB stores no number below 1e-130 in magnitude (but zero), and the SDK reads back no number
 * beyond ±2^53 as a JavaScript number. A value outside that range must be caught when telemetry is
 * accepted; written anyway, it would fail the worker (or a later read) forever.
 */
export const isStorableNumber = (n: number): boolean => Number.isFinite(n) && (n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) <= Number.MAX_SAFE_INTEGER));

/**
 * A sum of accepted numbers (a trace's tokens and cost, a session's) as the store can hold it: each
 * number is storable, but a sum of many may pass 2^53, which the SDK neither writes nor reads back as
 * a number. It is held at the limit rather than failing, forever, the message that carries the trace
 * (as the analytics rollups hold theirs at 2^64 nano-dollars).
 */
export const storableSum = (n: number): number => Math.min(n, Number.MAX_SAFE_INTEGER);

export const storableOrNull = (n: number | null): number | null => (n !== null && isStorableNumber(n) ? n : null);

/**
 * The name an attribute or metadata key `__proto__` (JSON allows it) is kept under: zod's records and
 * the DynamoDB marshaller leave such a key out, as assigning it to an object sets the prototype instead.
 */
export const PROTO_KEY_STAND_IN = '[__proto__]';
