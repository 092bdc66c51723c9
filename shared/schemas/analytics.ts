import * as z from 'zod/mini';
import { agentId, dateRangeQuery, rangeChecked } from './common.ts';

/** The query of every analytics endpoint: a date range, an agent, a bucket interval. */
export const analyticsQuery = rangeChecked(
  z.extend(dateRangeQuery, {
    agentId: z.optional(agentId),
    interval: z.optional(z.string().check(z.maxLength(20))),
  }),
);
export type AnalyticsQueryInput = z.infer<typeof analyticsQuery>;
