import { analyticsRoute } from '#shared/http/analytics-route.ts';

export const handler = analyticsRoute('analytics/token-usage');
