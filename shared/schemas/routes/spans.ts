import * as z from 'zod/mini';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { shortText, traceIdParams } from '../fields.ts';
import { spansRouteDefs } from '../../catalog.ts';
import { areaRoutes, MB, type AreaRouteSchemas } from '../route-schemas.ts';
import { spansBatchBody } from '../spans.ts';

export const traceListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentId),
    status: z.optional(z.enum(['ok', 'error'])),
    model: z.optional(shortText),
    sessionId: z.optional(shortText),
  }),
);

export const spansRoutes = /* @__PURE__ */ areaRoutes(spansRouteDefs, {
  'spans/ingest': { summary: 'Ingest up to 1000 spans (native JSON); 202 with accepted/rejected counts', body: spansBatchBody, maxBodyBytes: 5 * MB, convertsUnstorableValues: true },
  'spans/list-traces': { summary: 'List traces (root spans), newest first', query: traceListQuery },
  'spans/get-trace': { summary: 'A trace with its spans (ordered, with parent links), signals and logs', params: traceIdParams },
  'spans/filters': { summary: 'Values present in the trace store: agents, models, statuses, span kinds, tools, signal names' },
} as const satisfies AreaRouteSchemas<'spans'>);
