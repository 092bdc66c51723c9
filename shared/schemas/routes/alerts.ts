import * as z from 'zod/mini';
import { alertsRouteDefs } from '../../catalog.ts';
import { alertListFilters } from '../../domain/alerts/service.ts';
import { dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

const alertIdParams = z.object({ alertId: z.string().check(z.minLength(1), z.maxLength(64)) });
const alertListQuery = rangeChecked(z.extend(pageQuery, { ...dateRangeQuery.shape, ...alertListFilters.shape }));
const alertSummaryQuery = rangeChecked(z.extend(dateRangeQuery, { agentId: alertListFilters.shape.agentId }));

export const alertsRoutes = /* @__PURE__ */ areaRoutes(alertsRouteDefs, {
  'alerts/list': { summary: 'List alerts, latest occurrence first; a date range keeps those with an occurrence in it', query: alertListQuery },
  'alerts/summary': { summary: 'Alert counts per agent by status, type and severity', query: alertSummaryQuery },
  'alerts/get': { summary: 'Alert details', params: alertIdParams },
  'alerts/acknowledge': { summary: 'Acknowledge an open alert', params: alertIdParams },
  'alerts/reopen': { summary: 'Reopen an acknowledged or resolved alert', params: alertIdParams },
  'alerts/resolve': { summary: 'Resolve an open or acknowledged alert', params: alertIdParams },
} as const satisfies AreaRouteSchemas<'alerts'>);
