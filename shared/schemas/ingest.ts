import * as z from 'zod/mini';
import { isStorableNumber, MAX_TOKEN_COUNT, SPAN_KINDS, SPAN_STATUSES } from '../domain/spans/model.ts';
import { dateRangeQuery, pageQuery, rangeChecked } from './common.ts';

export const MAX_SPANS_PER_REQUEST = 1000;
export const MAX_SIGNALS_PER_REQUEST = 1000;
export const MAX_LOGS_PER_REQUEST = 1000;

const text = (min: number, max: number) => z.string().check(z.trim(), z.minLength(min), z.maxLength(max));
const id = z.string().check(z.trim(), z.minLength(1), z.maxLength(128), z.regex(/^[\w.:-]+$/, 'must be 1–128 letters, digits or . _ : -'));
const shortText = z.string().check(z.maxLength(256));
const storable = z.number().check(z.refine(isStorableNumber, 'must be 0 or of magnitude 1e-130 to 2^53'));
const nonNegative = storable.check(z.refine((n: number) => n >= 0, 'must not be negative'));
const count = z.number().check(z.int(), z.nonnegative(), z.lte(MAX_TOKEN_COUNT));

/** ISO 8601 text or epoch milliseconds, as epoch milliseconds. */
export const instant = z.pipe(
  z.union([
    z.number().check(z.nonnegative(), z.lte(8.64e15)),
    z.string().check(z.maxLength(40), z.refine((s: string) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time or epoch milliseconds')),
  ]),
  z.transform((v: number | string) => (typeof v === 'number' ? Math.floor(v) : Date.parse(v))),
);

const attributes = z.record(z.string().check(z.maxLength(256)), z.unknown()).check(z.refine((o: Record<string, unknown>) => Object.keys(o).length <= 256, 'at most 256 attributes'));

export const nativeSpan = z
  .object({
    traceId: id,
    spanId: id,
    parentSpanId: z.nullish(id),
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
    cost: z.nullish(nonNegative),
    input: z.optional(z.unknown()),
    output: z.optional(z.unknown()),
    toolName: z.nullish(shortText),
    sessionId: z.nullish(shortText),
    userId: z.nullish(shortText),
    experimentId: z.nullish(shortText),
    variant: z.nullish(shortText),
    attributes: z.optional(attributes),
  })
  .check(
    z.refine((s: { startTime: number; endTime?: number | null }) => s.endTime === undefined || s.endTime === null || s.endTime >= s.startTime, {
      message: 'must not be before startTime',
      path: ['endTime'],
    }),
  );
export type NativeSpan = z.infer<typeof nativeSpan>;

/** The batch shape; spans are validated one by one so one bad span does not refuse the rest. */
export const spansBatchBody = z.object({
  spans: z.array(z.unknown()).check(z.minLength(1, 'must hold at least one span'), z.maxLength(MAX_SPANS_PER_REQUEST, `at most ${MAX_SPANS_PER_REQUEST} spans per request`)),
});

export const signalBody = z.object({
  signalName: text(1, 200),
  value: storable,
  traceId: z.nullish(id),
  spanId: z.nullish(id),
  agentName: z.nullish(text(1, 200)),
  metadata: z.optional(attributes),
  timestamp: z.optional(instant),
});
export const signalsBatchBody = z.object({
  signals: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_SIGNALS_PER_REQUEST, `at most ${MAX_SIGNALS_PER_REQUEST} signals per request`)),
});

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export const logBody = z.object({
  timestamp: instant,
  level: z.enum(LOG_LEVELS),
  message: z.string().check(z.minLength(1), z.maxLength(32_768)),
  traceId: z.nullish(id),
  spanId: z.nullish(id),
  agentName: z.nullish(text(1, 200)),
  attributes: z.optional(attributes),
});
export const logsBatchBody = z.object({
  logs: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_LOGS_PER_REQUEST, `at most ${MAX_LOGS_PER_REQUEST} logs per request`)),
});

const agentIdFilter = z.string().check(z.minLength(1), z.maxLength(64));
const signalNameFilter = z.string().check(z.minLength(1), z.maxLength(200));

export const traceListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentIdFilter),
    status: z.optional(z.enum(['ok', 'error'])),
    model: z.optional(shortText),
    sessionId: z.optional(shortText),
  }),
);
export const traceIdParams = z.object({ traceId: id });

export const signalListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    signalName: z.optional(signalNameFilter),
    agentId: z.optional(agentIdFilter),
    traceId: z.optional(id),
  }),
);
export const signalSummaryQuery = rangeChecked(
  z.extend(dateRangeQuery, {
    signalName: z.optional(signalNameFilter),
    agentId: z.optional(agentIdFilter),
  }),
);
export const logListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentIdFilter),
    traceId: z.optional(id),
    level: z.optional(z.enum(LOG_LEVELS)),
  }),
);

export const agentIdParams = z.object({ agentId: agentIdFilter });
export const createAgentBody = z.object({
  name: text(1, 200),
  description: z._default(z.string().check(z.maxLength(2000)), ''),
  profileSettings: z._default(z.object({ learningEnabled: z._default(z.boolean(), true) }), { learningEnabled: true }),
});
export const updateAgentBody = z
  .object({
    name: z.optional(text(1, 200)),
    description: z.optional(z.string().check(z.maxLength(2000))),
    profileSettings: z.optional(z.object({ learningEnabled: z.boolean() })),
  })
  .check(z.refine((b: object) => Object.keys(b).length > 0, 'send at least one of name, description, profileSettings'));
export const agentListQuery = pageQuery;
