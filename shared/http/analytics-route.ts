import { analyticsInput } from '../domain/analytics/queries.ts';
import {
  type AnalyticsInput,
  costsView,
  latencyPercentilesView,
  metricsView,
  requestsOverTimeView,
  successFailureView,
  tokenUsageView,
} from '../domain/analytics/views.ts';
import { analyticsRoutes } from '../schemas/routes/analytics.ts';
import { tenantOf } from './auth.ts';
import { ok } from './reply.ts';
import { httpRoute, type RoutePorts } from './route.ts';

/** What each analytics endpoint reads (series points, per-agent rollups) and how it shapes them. */
const ENDPOINTS = {
  'analytics/metrics': { series: false, perAgent: true, view: metricsView },
  'analytics/success-failure': { series: true, perAgent: false, view: successFailureView },
  'analytics/requests-over-time': { series: true, perAgent: false, view: requestsOverTimeView },
  'analytics/latency-percentiles': { series: true, perAgent: false, view: latencyPercentilesView },
  'analytics/token-usage': { series: true, perAgent: false, view: tokenUsageView },
  'analytics/costs': { series: true, perAgent: true, view: costsView },
} satisfies Record<string, { series: boolean; perAgent: boolean; view: (input: AnalyticsInput) => unknown }>;

export const analyticsRoute = (id: keyof typeof ENDPOINTS, getPorts: () => RoutePorts<'rollups' | 'agents'>) =>
  httpRoute(id, analyticsRoutes, getPorts, async ({ query, principal }, ports) => {
    const { view, ...need } = ENDPOINTS[id];
    return ok(view(await analyticsInput(tenantOf(principal), query, need, { store: ports.store, clock: ports.clock })));
  });
