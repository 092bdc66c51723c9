import * as z from 'zod/mini';
import { MAX_TOKEN_COUNT, SPAN_KINDS, SPAN_STATUSES } from '../domain/spans/model.ts';
import { attributes, instant, shortText, storable, telemetryId, text } from './fields.ts';

export const MAX_SPANS_PER_REQUEST = 1000;
export const MAX_TAGS = 50;

const nonNegative = storable.check(z.refine((n: number) => n >= 0, 'must not be negative'));
const count = z.number().check(z.int(), z.nonnegative(), z.lte(MAX_TOKEN_COUNT));

export const nativeSpan = z
  .object({
    traceId: telemetryId,
    spanId: telemetryId,
    parentSpanId: z.nullish(telemetryId),
    name: text(1, 512),
    agentName: z.nullish(text(1, 200)),
    kind: z._default(z.enum(SPAN_KINDS), 'other'),
    startTime: instant,
    endTime: z.nullish(instant),
    status: z._default(z.enum(SPAN_STATUSES), 'unset'),
    statusMessage: z.nullish(z.string().check(z.maxLength(4096))),
    errorType: z.nullish(shortText),
    model: z.nullish(shortText),
    provider: z.nullish(shortText),
    operation: z.nullish(shortText),
    inputTokens: z.nullish(count),
    outputTokens: z.nullish(count),
    cachedInputTokens: z.nullish(count),
    reasoningTokens: z.nullish(count),
    cost: z.nullish(nonNegative),
    input: z.optional(z.unknown()),
    output: z.optional(z.unknown()),
    toolName: z.nullish(shortText),
    sessionId: z.nullish(shortText),
    userId: z.nullish(shortText),
    experimentId: z.nullish(shortText),
    variant: z.nullish(shortText),
    tags: z.optional(z.array(shortText).check(z.maxLength(MAX_TAGS, `at most ${MAX_TAGS} tags`))),
    metadata: z.optional(attributes),
    attributes: z.optional(attributes),
  })
  .check(
    z.refine((s: { startTime: number; endTime?: number | null }) => s.endTime === undefined || s.endTime === null || s.endTime >= s.startTime, {
      message: 'must not be before startTime',
      path: ['endTime'],
    }),
  );

/** The batch shape; spans are validated one by one so one bad span does not refuse the rest. */
export const spansBatchBody = z.object({
  spans: z
    .array(z.unknown())
    .check(z.minLength(1, 'must hold at least one span'), z.maxLength(MAX_SPANS_PER_REQUEST, `at most ${MAX_SPANS_PER_REQUEST} spans per request`)),
});
