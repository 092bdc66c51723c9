import * as z from 'zod/mini';
import { LOG_LEVELS } from '../../domain/spans/model.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { telemetryId } from '../fields.ts';
import { logsBatchBody } from '../logs.ts';
import { logsRouteDefs } from '../../catalog.ts';
import { areaRoutes, MB, type AreaRouteSchemas } from '../route-schemas.ts';

export const logListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentId),
    traceId: z.optional(telemetryId),
    level: z.optional(z.enum(LOG_LEVELS)),
  }),
);

export const logsRoutes = /* @__PURE__ */ areaRoutes(logsRouteDefs, {
  'logs/ingest': { summary: 'Ingest up to 1000 log records', body: logsBatchBody, maxBodyBytes: 5 * MB, convertsUnstorableValues: true },
  'logs/list': { summary: 'List logs, newest first', query: logListQuery },
} as const satisfies AreaRouteSchemas<'logs'>);
