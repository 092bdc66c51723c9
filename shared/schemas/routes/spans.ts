import * as z from 'zod/mini';
import { spansRouteDefs } from '../../catalog.ts';
import { MAX_TOKEN_COUNT } from '../../domain/spans/model.ts';
import { TRACE_STATUSES } from '../../domain/spans/summary.ts';
import { agentId, dateRangeQuery, pageQuery, queryBoolean, queryDecimal, queryInteger, rangeChecked } from '../common.ts';
import { traceIdParams } from '../fields.ts';
import { type AreaRouteSchemas, areaRoutes, TELEMETRY_MAX_BODY_BYTES } from '../route-schemas.ts';
import { spansBatchBody } from '../spans.ts';

/** The longest duration and the largest token count a filter takes (about a year; the largest count a span may report). */
const MAX_DURATION_MS = 366 * 86_400_000;
const filterText = z.string().check(z.minLength(1), z.maxLength(256));
/** `key=value`: a metadata key (up to 128 characters, no `=`) and the value it holds, as text. */
export const metadataFilter = z
  .string()
  .check(z.regex(/^[^=]{1,128}=.{1,256}$/s, 'must be key=value (a key of up to 128 characters without "=", a value of 1 to 256)'));

export const traceListQuery = rangeChecked(
  z
    .extend(pageQuery, {
      ...dateRangeQuery.shape,
      agentId: z.optional(agentId),
      status: z.optional(z.enum(TRACE_STATUSES)),
      model: z.optional(filterText),
      sessionId: z.optional(filterText),
      userId: z.optional(filterText),
      toolName: z.optional(filterText),
      errorType: z.optional(filterText),
      name: z.optional(filterText),
      tag: z.optional(filterText),
      metadata: z.optional(metadataFilter),
      minDurationMs: z.optional(queryInteger(0, MAX_DURATION_MS)),
      maxDurationMs: z.optional(queryInteger(0, MAX_DURATION_MS)),
      minCost: z.optional(queryDecimal(0, 1e9)),
      minTokens: z.optional(queryInteger(0, MAX_TOKEN_COUNT)),
      hasAlert: z.optional(queryBoolean),
    })
    .check(
      z.superRefine((q: { minDurationMs?: number; maxDurationMs?: number }, ctx) => {
        if (q.minDurationMs !== undefined && q.maxDurationMs !== undefined && q.maxDurationMs < q.minDurationMs) {
          ctx.addIssue({ code: 'custom', path: ['maxDurationMs'], message: 'must not be below minDurationMs' });
        }
      }),
    ),
);

export const spansRoutes = /* @__PURE__ */ areaRoutes(spansRouteDefs, {
  'spans/ingest': {
    summary: 'Ingest up to 1000 spans (native JSON); 202 with accepted/rejected counts',
    body: spansBatchBody,
    maxBodyBytes: TELEMETRY_MAX_BODY_BYTES,
    convertsUnstorableValues: true,
  },
  'spans/list-traces': {
    summary:
      'List traces (root spans), newest first. agentId, userId, sessionId, status and dates read key-ordered lists; toolName, errorType, name, tag, metadata (key=value), model, duration, cost, tokens and hasAlert are filters read within a budget (a short page with nextCursor when matches are rare)',
    query: traceListQuery,
  },
  'spans/get-trace': {
    summary:
      'A trace with its spans (in tree order, with parent links), signals and logs. Its spans come as many as fit in one answer (about 5 MB): past that, spansNextCursor continues them (pass it as cursor; later pages carry only spans)',
    params: traceIdParams,
    query: z.object({ cursor: pageQuery.shape.cursor }),
  },
  'spans/filters': {
    summary: 'The values each trace filter can take: agents, models, statuses, span kinds, tools, error types, trace names, tags, signal names',
  },
} as const satisfies AreaRouteSchemas<'spans'>);
