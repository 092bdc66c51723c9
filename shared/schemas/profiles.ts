import * as z from 'zod/mini';
import { profileNarrative } from '../domain/profiles/narrative.ts';
import { MATURITY_LEVELS } from '../domain/profiles/profile.ts';
import { storableNumber } from './storable.ts';

const milliseconds = storableNumber(0, 86_400_000);

/**
 * What `PUT /agents/:agentId/agent-profile` may change: the narrative, the maturity level, and the
 * expectations the anchors and anomaly checks are derived from. Observed distributions (tools,
 * temporal patterns, volume) are left to learning. Unknown fields are refused.
 */
export const profileEditBody = z
  .strictObject({
    identity: z.optional(
      z.partial(
        z.strictObject({
          useCase: profileNarrative.shape.useCase,
          maturityLevel: z.enum(MATURITY_LEVELS),
          behaviouralSummary: profileNarrative.shape.behaviouralSummary,
        }),
      ),
    ),
    insights: z.optional(profileNarrative.shape.insights),
    errorPatterns: z.optional(z.strictObject({ rate: storableNumber(0, 1) })),
    volumeCharacteristics: z.optional(
      z.strictObject({
        typicalLatency: z.optional(z.partial(z.strictObject({ p50Ms: milliseconds, p95Ms: milliseconds, averageMs: milliseconds }))),
        costPerTrace: z.optional(storableNumber(0, 1000)),
      }),
    ),
  })
  .check(z.refine((body: object) => Object.keys(body).length > 0, 'send at least one of identity, insights, errorPatterns, volumeCharacteristics'));

export type ProfileEdit = z.infer<typeof profileEditBody>;
