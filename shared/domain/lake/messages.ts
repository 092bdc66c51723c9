import * as z from 'zod/mini';

/** The lake's own queue: exports to run, deleted agents to forget. */
export const LAKE_QUEUE = 'lake' as const;

const id = z.string().check(z.minLength(1));

/** What the lake queue carries: an export to run, a deleted agent's rows to remove. */
export const lakeMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('export'), tenantId: id, exportId: id }),
  z.object({ kind: z.literal('forget-agent'), tenantId: id, agentId: id }),
]);
export type LakeMessage = z.infer<typeof lakeMessageSchema>;
