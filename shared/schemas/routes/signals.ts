import * as z from 'zod/mini';
import { signalsRouteDefs } from '../../catalog.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { telemetryId, traceIdParams } from '../fields.ts';
import { type AreaRouteSchemas, areaRoutes, TELEMETRY_MAX_BODY_BYTES } from '../route-schemas.ts';
import { signalBody, signalsBatchBody } from '../signals.ts';

const signalName = z.string().check(z.minLength(1), z.maxLength(200));

export const signalListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    signalName: z.optional(signalName),
    agentId: z.optional(agentId),
    traceId: z.optional(telemetryId),
  }),
);
export const signalSummaryQuery = rangeChecked(
  z.extend(dateRangeQuery, {
    signalName: z.optional(signalName),
    agentId: z.optional(agentId),
  }),
);

export const signalsRoutes = /* @__PURE__ */ areaRoutes(signalsRouteDefs, {
  'signals/record': { summary: 'Record a signal', body: signalBody, convertsUnstorableValues: true },
  'signals/record-batch': {
    summary: 'Record up to 1000 signals',
    body: signalsBatchBody,
    maxBodyBytes: TELEMETRY_MAX_BODY_BYTES,
    convertsUnstorableValues: true,
  },
  'signals/list': { summary: 'List signals, newest first', query: signalListQuery },
  'signals/summary': { summary: 'Per signal name and agent: count, avg, min, max, p50, p95', query: signalSummaryQuery },
  'signals/of-trace': { summary: 'Signals of one trace', params: traceIdParams },
} as const satisfies AreaRouteSchemas<'signals'>);
