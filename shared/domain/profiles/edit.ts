import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { generateAnchors, rebaseAnchors } from './anchors.ts';
import type { LearningState } from './learning.ts';
import { profileNarrative } from './narrative.ts';
import { MATURITY_LEVELS, type AgentProfile } from './profile.ts';

const milliseconds = z.number().nonnegative().max(86_400_000);

/**
 * What `PUT /agents/:agentId/agent-profile` may change: the narrative, the maturity level, and the
 * expectations the anchors and anomaly checks are derived from. Observed distributions (tools,
 * temporal patterns, volume) are left to learning. Unknown fields are refused.
 */
export const profileEditBody = z
  .strictObject({
    identity: z
      .strictObject({ useCase: profileNarrative.shape.useCase, maturityLevel: z.enum(MATURITY_LEVELS), behaviouralSummary: profileNarrative.shape.behaviouralSummary })
      .partial()
      .optional(),
    insights: profileNarrative.shape.insights.optional(),
    errorPatterns: z.strictObject({ rate: z.number().min(0).max(1) }).optional(),
    volumeCharacteristics: z
      .strictObject({
        typicalLatency: z.strictObject({ p50Ms: milliseconds, p95Ms: milliseconds, averageMs: milliseconds }).partial().optional(),
        costPerTrace: z.number().nonnegative().max(1000).optional(),
      })
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of identity, insights, errorPatterns, volumeCharacteristics');

export type ProfileEdit = z.infer<typeof profileEditBody>;

function editedProfile(profile: AgentProfile, edit: ProfileEdit, now: Date): AgentProfile {
  const volume = profile.volumeCharacteristics;
  const next: AgentProfile = {
    ...profile,
    identity: { ...profile.identity, ...edit.identity },
    insights: edit.insights ?? profile.insights,
    errorPatterns: { ...profile.errorPatterns, ...edit.errorPatterns },
    volumeCharacteristics: {
      ...volume,
      typicalLatency: { ...volume.typicalLatency, ...edit.volumeCharacteristics?.typicalLatency },
      costPerTrace: edit.volumeCharacteristics?.costPerTrace ?? volume.costPerTrace,
    },
    editedAt: now.toISOString(),
  };
  const { p50Ms, p95Ms } = next.volumeCharacteristics.typicalLatency;
  if (p50Ms !== null && p95Ms !== null && p50Ms > p95Ms) {
    throw new ValidationError('volumeCharacteristics.typicalLatency: p50Ms must not exceed p95Ms');
  }
  return next;
}

/**
 * A manual edit: merged onto the profile, whose anchors are generated again (judged on what they last
 * measured). It lasts until the next learning cycle that re-learns the profile overwrites it.
 */
export function applyProfileEdit(state: LearningState, edit: ProfileEdit, now: Date, anchorMinTraces: number): LearningState {
  if (!state.profile) throw new ValidationError('The agent has no profile to edit yet (phase pre-profile)');
  const profile = editedProfile(state.profile, edit, now);
  return { ...state, profile, anchors: rebaseAnchors(generateAnchors(profile), state.anchors, anchorMinTraces) };
}
