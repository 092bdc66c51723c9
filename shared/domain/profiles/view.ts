import type { AgentRecord } from '../agents/ports.ts';
import type { LearningState } from './learning.ts';

/** The answer of the profile endpoints: the profile (null before the first), its anchors and the learning state. */
export function profileView(agent: AgentRecord, state: LearningState) {
  const { learningEnabled } = agent.profileSettings;
  return {
    agentId: agent.id,
    agentName: agent.name,
    phase: state.phase,
    learningEnabled,
    profile: state.profile,
    anchors: state.anchors,
    lastLearnedAt: state.lastLearnedAt,
    lastEvaluatedAt: state.lastCycleAt,
    // A paused agent learns nothing, so no cycle is coming.
    nextLearningAt: learningEnabled ? state.nextLearningAt : null,
    learning: {
      trainingStartedAt: state.trainingStartedAt,
      measuredUntil: state.measuredUntil,
      lastReason: state.lastLearnReason,
      bootstrapCycles: state.bootstrapCycles,
      stableCycles: state.stableCycles,
      lastComparison: state.lastComparison,
      lastDrift: state.lastDrift,
    },
  };
}
