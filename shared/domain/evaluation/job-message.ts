import * as z from 'zod/mini';

/** What the evaluate queue carries: one finished trace to judge. */
export const evaluationJobSchema = z.object({
  kind: z.literal('evaluate-trace'),
  tenantId: z.string().check(z.minLength(1)),
  traceId: z.string().check(z.minLength(1)),
});
export type EvaluationJob = z.infer<typeof evaluationJobSchema>;
