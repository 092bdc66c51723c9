import * as z from 'zod/mini';
import { logsRouteDefs } from '../../catalog.ts';
import { LOG_LEVELS } from '../../domain/spans/model.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { telemetryId, text } from '../fields.ts';
import { logsBatchBody } from '../logs.ts';
import { type AreaRouteSchemas, areaRoutes, TELEMETRY_MAX_BODY_BYTES } from '../route-schemas.ts';

export const logListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentId),
    traceId: z.optional(telemetryId),
    level: z.optional(z.enum(LOG_LEVELS)),
    eventName: z.optional(text(1, 256)),
  }),
);

export const logsRoutes = /* @__PURE__ */ areaRoutes(logsRouteDefs, {
  'logs/ingest': { summary: 'Ingest up to 1000 log records', body: logsBatchBody, maxBodyBytes: TELEMETRY_MAX_BODY_BYTES, convertsUnstorableValues: true },
  'logs/list': { summary: 'List logs, newest first', query: logListQuery },
} as const satisfies AreaRouteSchemas<'logs'>);
