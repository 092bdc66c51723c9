import { analyticsRouteDefs } from '../../catalog.ts';
import { analyticsQuery } from '../analytics.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

export const analyticsRoutes = /* @__PURE__ */ areaRoutes(analyticsRouteDefs, {
  'analytics/metrics': { summary: 'Dashboard metrics over a range, with a per-agent breakdown', query: analyticsQuery },
  'analytics/success-failure': { summary: 'Success and failure counts and rates, overall and per bucket', query: analyticsQuery },
  'analytics/requests-over-time': { summary: 'Request volume per bucket (zero-filled)', query: analyticsQuery },
  'analytics/latency-percentiles': { summary: 'Trace latency p50/p75/p90/p95/p99, avg, min, max, overall and per bucket', query: analyticsQuery },
  'analytics/token-usage': { summary: 'Input, output and total tokens per bucket and per model', query: analyticsQuery },
  'analytics/costs': { summary: 'Cost by agent, by model and per bucket', query: analyticsQuery },
} as const satisfies AreaRouteSchemas<'analytics'>);
