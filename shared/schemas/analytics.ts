import * as z from 'zod/mini';
import { dateRangeQuery, rangeChecked } from './common.ts';

/** The query of every analytics endpoint: a date range, an agent, a bucket interval. */
export const analyticsQuery = rangeChecked(
  z.extend(dateRangeQuery, {
    agentId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    interval: z.optional(z.string().check(z.maxLength(20))),
  }),
);
export type AnalyticsQueryInput = z.infer<typeof analyticsQuery>;
