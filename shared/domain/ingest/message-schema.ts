import * as z from 'zod/mini';
import { type AttributeValue, type CanonicalLog, type CanonicalSignal, type CanonicalSpan, LOG_LEVELS, SPAN_KINDS, SPAN_STATUSES } from '../spans/model.ts';
import { type IngestMessage, MAX_CLOSE_TRACES } from './messages.ts';

/**
 * The ingest queue's messages as the worker parses them. The service writes them itself
 * (`toIngestMessages`), so a message that fails here was corrupted or written by another version:
 * it fails alone, with the path of what is wrong, and goes to the dead-letter queue after its retries.
 */
const text = z.string();
const nullableText = z.nullable(z.string());
const nullableNumber = z.nullable(z.number());

const attributeValue: z.ZodMiniType<AttributeValue> = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.lazy(() => attributeValue)),
  z.record(
    z.string(),
    z.lazy(() => attributeValue),
  ),
]);
const attributes = z.record(z.string(), attributeValue);

const canonicalSpan = z.object({
  traceId: text,
  spanId: text,
  parentSpanId: nullableText,
  name: text,
  kind: z.enum(SPAN_KINDS),
  agentName: nullableText,
  agentNameFromService: z.boolean(),
  startTimeMs: z.number(),
  endTimeMs: nullableNumber,
  status: z.enum(SPAN_STATUSES),
  statusMessage: nullableText,
  errorType: nullableText,
  model: nullableText,
  provider: nullableText,
  operation: nullableText,
  inputTokens: nullableNumber,
  outputTokens: nullableNumber,
  cachedInputTokens: nullableNumber,
  reasoningTokens: nullableNumber,
  cost: nullableNumber,
  input: nullableText,
  output: nullableText,
  toolName: nullableText,
  sessionId: nullableText,
  userId: nullableText,
  experimentId: nullableText,
  variant: nullableText,
  tags: z.array(text),
  metadata: attributes,
  attributes,
  events: z.array(z.object({ name: text, timeMs: z.number(), attributes })),
});

const canonicalSignal = z.object({
  signalName: text,
  value: z.number(),
  traceId: nullableText,
  spanId: nullableText,
  agentName: nullableText,
  metadata: attributes,
  timestampMs: z.number(),
  arrivalKey: z.optional(text),
});

const canonicalLog = z.object({
  timestampMs: z.number(),
  level: z.enum(LOG_LEVELS),
  message: text,
  eventName: nullableText,
  traceId: nullableText,
  spanId: nullableText,
  agentName: nullableText,
  attributes,
  arrivalKey: z.optional(text),
});

export const ingestMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('telemetry'),
    tenantId: z.string().check(z.minLength(1)),
    receivedAtMs: z.number(),
    spans: z.array(canonicalSpan),
    signals: z.array(canonicalSignal),
    logs: z.array(canonicalLog),
  }),
  z.object({
    kind: z.literal('purge-agent'),
    tenantId: z.string().check(z.minLength(1)),
    agentId: z.string().check(z.minLength(1)),
    finalSweep: z.optional(z.literal(true)),
  }),
  z.object({
    kind: z.literal('close-traces'),
    tenantId: z.string().check(z.minLength(1)),
    traceIds: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_CLOSE_TRACES)),
  }),
  z.object({
    kind: z.literal('refresh-session'),
    tenantId: z.string().check(z.minLength(1)),
    sessionId: z.string().check(z.minLength(1)),
    dueAtMs: z.number().check(z.int(), z.nonnegative()),
  }),
]);

/** The schema and the types the service writes are the same shapes (the compiler checks both ways). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type ShapesAgree = Holds<
  [
    Same<z.infer<typeof canonicalSpan>, CanonicalSpan>,
    Same<z.infer<typeof canonicalSignal>, CanonicalSignal>,
    Same<z.infer<typeof canonicalLog>, CanonicalLog>,
    Same<z.infer<typeof ingestMessageSchema>, IngestMessage>,
  ] extends [true, true, true, true]
    ? true
    : false
>;
