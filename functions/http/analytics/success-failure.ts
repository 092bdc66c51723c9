import { analyticsRoute } from '#shared/http/analytics-route.ts';
import { analyticsPorts } from '#shared/wiring/analytics.ts';

export const handler = analyticsRoute('analytics/success-failure', analyticsPorts);
