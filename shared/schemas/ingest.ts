import * as z from 'zod';
import { isStorableNumber, MAX_TOKEN_COUNT, SPAN_KINDS, SPAN_STATUSES } from '../domain/spans/model.ts';
import { dateRangeQuery, pageQuery, rangeChecked } from './common.ts';

export const MAX_SPANS_PER_REQUEST = 1000;
export const MAX_SIGNALS_PER_REQUEST = 1000;
export const MAX_LOGS_PER_REQUEST = 1000;

const id = z.string().trim().min(1).max(128).regex(/^[\w.:-]+$/, 'must be 1–128 letters, digits or . _ : -');
const shortText = z.string().max(256);
const storable = z.number().refine(isStorableNumber, 'must be 0 or of magnitude 1e-130 to 2^53');
const nonNegative = storable.refine((n) => n >= 0, 'must not be negative');
const count = z.number().int().nonnegative().max(MAX_TOKEN_COUNT);

/** ISO 8601 text or epoch milliseconds, as epoch milliseconds. */
export const instant = z.union([
  z.number().finite().nonnegative().max(8.64e15),
  z.string().max(40).refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time or epoch milliseconds'),
]).transform((v) => (typeof v === 'number' ? Math.floor(v) : Date.parse(v)));

const attributes = z.record(z.string().max(256), z.unknown()).refine((o) => Object.keys(o).length <= 256, 'at most 256 attributes');

export const nativeSpan = z
  .object({
    traceId: id,
    spanId: id,
    parentSpanId: id.nullish(),
    name: z.string().trim().min(1).max(512),
    agentName: z.string().trim().min(1).max(200).nullish(),
    kind: z.enum(SPAN_KINDS).default('other'),
    startTime: instant,
    endTime: instant.nullish(),
    status: z.enum(SPAN_STATUSES).default('unset'),
    statusMessage: z.string().max(4096).nullish(),
    errorType: shortText.nullish(),
    model: shortText.nullish(),
    provider: shortText.nullish(),
    operation: shortText.nullish(),
    inputTokens: count.nullish(),
    outputTokens: count.nullish(),
    cachedInputTokens: count.nullish(),
    cost: nonNegative.nullish(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    toolName: shortText.nullish(),
    sessionId: shortText.nullish(),
    userId: shortText.nullish(),
    experimentId: shortText.nullish(),
    variant: shortText.nullish(),
    attributes: attributes.optional(),
  })
  .refine((s) => s.endTime === undefined || s.endTime === null || s.endTime >= s.startTime, {
    message: 'must not be before startTime',
    path: ['endTime'],
  });
export type NativeSpan = z.infer<typeof nativeSpan>;

/** The batch shape; spans are validated one by one so one bad span does not refuse the rest. */
export const spansBatchBody = z.object({
  spans: z.array(z.unknown()).min(1, 'must hold at least one span').max(MAX_SPANS_PER_REQUEST, `at most ${MAX_SPANS_PER_REQUEST} spans per request`),
});

export const signalBody = z.object({
  signalName: z.string().trim().min(1).max(200),
  value: storable,
  traceId: id.nullish(),
  spanId: id.nullish(),
  agentName: z.string().trim().min(1).max(200).nullish(),
  metadata: attributes.optional(),
  timestamp: instant.optional(),
});
export const signalsBatchBody = z.object({
  signals: z.array(z.unknown()).min(1).max(MAX_SIGNALS_PER_REQUEST, `at most ${MAX_SIGNALS_PER_REQUEST} signals per request`),
});

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export const logBody = z.object({
  timestamp: instant,
  level: z.enum(LOG_LEVELS),
  message: z.string().min(1).max(32_768),
  traceId: id.nullish(),
  spanId: id.nullish(),
  agentName: z.string().trim().min(1).max(200).nullish(),
  attributes: attributes.optional(),
});
export const logsBatchBody = z.object({
  logs: z.array(z.unknown()).min(1).max(MAX_LOGS_PER_REQUEST, `at most ${MAX_LOGS_PER_REQUEST} logs per request`),
});

const agentIdFilter = z.string().min(1).max(64);

export const traceListQuery = rangeChecked(
  pageQuery.extend(dateRangeQuery.shape).extend({
    agentId: agentIdFilter.optional(),
    status: z.enum(['ok', 'error']).optional(),
    model: shortText.optional(),
    sessionId: shortText.optional(),
  }),
);
export const traceIdParams = z.object({ traceId: id });

export const signalListQuery = rangeChecked(
  pageQuery.extend(dateRangeQuery.shape).extend({
    signalName: z.string().min(1).max(200).optional(),
    agentId: agentIdFilter.optional(),
    traceId: id.optional(),
  }),
);
export const signalSummaryQuery = rangeChecked(
  dateRangeQuery.extend({
    signalName: z.string().min(1).max(200).optional(),
    agentId: agentIdFilter.optional(),
  }),
);
export const logListQuery = rangeChecked(
  pageQuery.extend(dateRangeQuery.shape).extend({
    agentId: agentIdFilter.optional(),
    traceId: id.optional(),
    level: z.enum(LOG_LEVELS).optional(),
  }),
);

export const agentIdParams = z.object({ agentId: agentIdFilter });
export const createAgentBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  profileSettings: z.object({ learningEnabled: z.boolean().default(true) }).default({ learningEnabled: true }),
});
export const updateAgentBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    profileSettings: z.object({ learningEnabled: z.boolean() }).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'send at least one of name, description, profileSettings');
export const agentListQuery = pageQuery;
