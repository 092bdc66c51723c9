import type { ProfileEdit } from '../../schemas/profiles.ts';
import { ValidationError } from '../errors.ts';
import { generateAnchors, rebaseAnchors } from './anchors.ts';
import type { LearningState } from './learning.ts';
import type { AgentProfile } from './profile.ts';

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
