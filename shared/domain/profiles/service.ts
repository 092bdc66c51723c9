import type { ProfileEdit } from '../../schemas/profiles.ts';
import type { AgentRecord } from '../agents/ports.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import type { Clock } from '../ports.ts';
import type { Store } from '../store.ts';
import { applyProfileEdit } from './edit.ts';
import {
  type CyclePlan,
  isDue,
  type LearningState,
  type LearnReason,
  learned,
  newLearningState,
  pauseCycle,
  planCycle,
  planFirstProfile,
  recentWindow,
  resetTraining,
  trainingWindowStart,
} from './learning.ts';
import type { WindowMeasurement } from './measurement.ts';
import { type Narrator, templateNarrative } from './narrative.ts';
import { countTracesSince, learningEvidence, measureEvidence, measureWindowOf } from './observe.ts';
import { assembleProfile, type ProfileStatistics } from './profile.ts';
import type { LearningSettings } from './settings.ts';
import { type LearningEvidence, profileStatistics } from './statistics.ts';
import { profileView } from './view.ts';

export interface ProfileDeps {
  store: Pick<Store, 'profiles' | 'agents'>;
  clock: Clock;
  settings: LearningSettings;
  reportError: (message: string, err: unknown) => void;
}

/** What learning a profile takes beyond reading and editing one: the traces and rollups it learns from, and the narrator. */
export interface LearningDeps extends ProfileDeps {
  store: Pick<Store, 'profiles' | 'agents' | 'traces' | 'rollups'>;
  narrator: Narrator;
}

const MAX_WRITE_ATTEMPTS = 3;

async function agentOf(tenantId: string, agentId: string, deps: ProfileDeps): Promise<AgentRecord> {
  const agent = await deps.store.agents.get(tenantId, agentId);
  if (!agent) throw new NotFoundError('Agent');
  return agent;
}

const stateOf = async (agent: AgentRecord, deps: ProfileDeps) =>
  (await deps.store.profiles.get(agent.tenantId, agent.id)) ?? newLearningState(agent.tenantId, agent.id);

/** Applies a change to the stored state, again on a fresh read if another writer came first. */
async function change(agent: AgentRecord, deps: ProfileDeps, next: (current: LearningState) => Promise<LearningState>): Promise<LearningState> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const saved = await deps.store.profiles.save(await next(await stateOf(agent, deps)));
    if (saved) return saved;
  }
  throw new Error(`the profile of agent ${agent.id} kept changing while being updated`);
}

/** The narrator's narrative, or the template's when the narrator fails (a profile is never held up by it). */
async function narrate(agent: AgentRecord, statistics: ProfileStatistics, deps: LearningDeps) {
  const input = { agent: { name: agent.name, description: agent.description }, statistics };
  try {
    return { narrative: await deps.narrator.narrate(input), narratedBy: deps.narrator.name };
  } catch (err) {
    deps.reportError('profile narrator failed; using the template', err);
    return { narrative: templateNarrative(input), narratedBy: 'template' };
  }
}

const measureRecent = (agent: AgentRecord, state: LearningState, deps: LearningDeps) =>
  measureWindowOf(agent.tenantId, agent.id, recentWindow(state, deps.clock.now(), deps.settings), deps.settings.sampleTraces, deps);

const trainingEvidence = (agent: AgentRecord, state: LearningState, deps: LearningDeps) =>
  learningEvidence(agent.tenantId, agent.id, trainingWindowStart(state, deps.clock.now(), deps.settings), deps.settings.sampleTraces, deps);

/**
 * Learns a profile from the training window's evidence and records it. The anchors are judged on
 * `measured` (what this cycle saw since the last one); a first profile is judged on its own window.
 */
async function learn(
  agent: AgentRecord,
  state: LearningState,
  reason: LearnReason,
  evidence: LearningEvidence,
  measured: WindowMeasurement | null,
  deps: LearningDeps,
): Promise<LearningState> {
  const now = deps.clock.now();
  const statistics = profileStatistics(evidence);
  const { narrative, narratedBy } = await narrate(agent, statistics, deps);
  const profile = assembleProfile(statistics, narrative, narratedBy, now);
  return learned(state, reason, profile, measured ?? measureEvidence(evidence), now, deps.settings);
}

export async function getAgentProfile(tenantId: string, agentId: string, deps: ProfileDeps) {
  const agent = await agentOf(tenantId, agentId, deps);
  return profileView(agent, await stateOf(agent, deps));
}

export async function editAgentProfile(tenantId: string, agentId: string, edit: ProfileEdit, deps: ProfileDeps) {
  const agent = await agentOf(tenantId, agentId, deps);
  const saved = await change(agent, deps, async (current) => applyProfileEdit(current, edit, deps.clock.now(), deps.settings.anchorMinTraces));
  return profileView(agent, saved);
}

/** Spec: any phase → bootstrap, the profile re-learned from scratch, now. */
export async function regenerateAgentProfile(tenantId: string, agentId: string, deps: LearningDeps) {
  const agent = await agentOf(tenantId, agentId, deps);
  if (!agent.profileSettings.learningEnabled) throw new ValidationError('Learning is disabled for this agent (profileSettings.learningEnabled is false)');
  const saved = await change(agent, deps, async (current) => {
    const evidence = await trainingEvidence(agent, current, deps);
    if (evidence.overall.requestCount === 0) {
      const since = current.trainingStartedAt ? ` since training was reset at ${current.trainingStartedAt}` : ` in the last ${deps.settings.windowDays} days`;
      throw new ValidationError(`The agent has no finished traces${since} to learn from`);
    }
    const measured = current.measuredUntil === null ? null : await measureRecent(agent, current, deps);
    return learn(agent, current, 'regenerate', evidence, measured, deps);
  });
  return profileView(agent, saved);
}

/** Spec: any phase → pre-profile, learning state and profile cleared. */
export async function resetAgentTraining(tenantId: string, agentId: string, deps: ProfileDeps) {
  const agent = await agentOf(tenantId, agentId, deps);
  const saved = await change(agent, deps, async (current) => resetTraining(current, deps.clock.now()));
  return profileView(agent, saved);
}

/**
 * One learning cycle of one agent, if it is still due: a paused agent is only rescheduled; before the
 * first profile the training window's traces are counted; after it, what happened since the last
 * cycle is measured, the anchors evaluated and the spec's transition applied. A cycle that lost a
 * race with another writer changes nothing (the next run sees the agent again if still due).
 */
export async function runLearningCycle(tenantId: string, agentId: string, deps: LearningDeps): Promise<CycleOutcome> {
  const agent = await deps.store.agents.get(tenantId, agentId);
  if (!agent) {
    await deps.store.profiles.delete(tenantId, agentId);
    return 'deleted';
  }
  const state = await deps.store.profiles.get(tenantId, agentId);
  const now = deps.clock.now();
  if (!state || !isDue(state, now)) return 'not-due';
  if (!agent.profileSettings.learningEnabled) return (await deps.store.profiles.save(pauseCycle(state, now, deps.settings))) ? 'paused' : 'raced';

  let plan: CyclePlan;
  let recent: WindowMeasurement | null = null;
  if (state.phase === 'pre-profile') {
    plan = planFirstProfile(state, await countTracesSince(tenantId, agentId, trainingWindowStart(state, now, deps.settings), deps), deps.settings);
  } else {
    recent = await measureRecent(agent, state, deps);
    plan = planCycle(state, recent, now, deps.settings);
  }
  const next =
    plan.outcome === 'learn' ? await learn(agent, plan.state, plan.reason, await trainingEvidence(agent, plan.state, deps), recent, deps) : plan.state;
  return (await deps.store.profiles.save({ ...next, failedCycles: 0 })) ? plan.outcome : 'raced';
}

export type CycleOutcome = CyclePlan['outcome'] | 'paused' | 'deleted' | 'not-due' | 'raced';

export interface CycleRunLimits {
  maxAgents: number;
  budgetMs: number;
}

/** The learning job: cycles of the agents that are due, oldest first, within the run's limits. */
export async function runDueLearningCycles(deps: LearningDeps, limits: CycleRunLimits) {
  const deadline = deps.clock.now().getTime() + limits.budgetMs;
  const due = await deps.store.profiles.due(deps.clock.now(), limits.maxAgents);
  const outcomes: Record<string, number> = {};
  for (const { tenantId, agentId } of due) {
    if (deps.clock.now().getTime() > deadline) break;
    try {
      const outcome = await runLearningCycle(tenantId, agentId, deps);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    } catch (err) {
      deps.reportError(`learning cycle of agent ${agentId} failed`, err);
      outcomes['failed'] = (outcomes['failed'] ?? 0) + 1;
      await postponeFailedCycle(tenantId, agentId, deps).catch((postponing: unknown) =>
        deps.reportError(`learning cycle of agent ${agentId} could not be postponed`, postponing),
      );
    }
  }
  return { due: due.length, outcomes };
}

/**
 * A cycle that failed is tried again later rather than at every run: it stays due, oldest first, so at
 * every run it would come before (and with enough of them, instead of) the healthy ones. The wait
 * doubles with each failure in a row, from an hour to at most a day.
 */
const FAILED_CYCLE_FIRST_RETRY_MS = 60 * 60_000;
const FAILED_CYCLE_LONGEST_RETRY_MS = 24 * 60 * 60_000;

export const failedCycleRetryMs = (failuresInARow: number): number =>
  Math.min(FAILED_CYCLE_LONGEST_RETRY_MS, FAILED_CYCLE_FIRST_RETRY_MS * 2 ** Math.max(0, failuresInARow - 1));

async function postponeFailedCycle(tenantId: string, agentId: string, deps: ProfileDeps): Promise<void> {
  const state = await deps.store.profiles.get(tenantId, agentId);
  if (!state) return;
  const failedCycles = (state.failedCycles ?? 0) + 1;
  const nextLearningAt = new Date(deps.clock.now().getTime() + failedCycleRetryMs(failedCycles)).toISOString();
  await deps.store.profiles.save({ ...state, failedCycles, nextLearningAt });
}
