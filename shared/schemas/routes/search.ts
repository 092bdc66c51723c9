import * as z from 'zod/mini';
import { searchRouteDefs } from '../../catalog.ts';
import { MAX_QUERY_CHARS } from '../../domain/lake/limits.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

/** An opaque page position the service handed out (signed; checked by the domain). */
export const cursorParam = z.optional(z.string().check(z.minLength(1), z.maxLength(2048)));

export const searchQuery = rangeChecked(
  z.object({
    q: z._default(z.string().check(z.maxLength(MAX_QUERY_CHARS)), ''),
    agentId: z.optional(agentId),
    ...dateRangeQuery.shape,
    limit: pageQuery.shape.limit,
    cursor: cursorParam,
  }),
);

export const askBody = z.object({
  question: z.string().check(z.trim(), z.minLength(3), z.maxLength(500)),
  limit: z._default(z.number().check(z.int(), z.gte(1), z.lte(100)), 20),
});

export const searchRoutes = /* @__PURE__ */ areaRoutes(searchRouteDefs, {
  'search/traces': {
    summary:
      'Search every finished trace of the plan\'s retention (deepSearch): words, "phrases" and field terms (agent: model: tool: status: session: user: error: cost> duration> tokens> attr.<key>:), newest first, each hit with the span and words that matched. Traces are searchable seconds after ingestion locally, about 1–2 minutes on AWS (Firehose buffering)',
    query: searchQuery,
  },
  'search/ask': {
    summary:
      'A question in plain words turned into a search and run (smartSearch): answers the query as understood, the words not used, and the first page of results',
    body: askBody,
  },
} as const satisfies AreaRouteSchemas<'search'>);
