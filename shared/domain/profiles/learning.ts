import { BUCKET_MS } from '../analytics/buckets.ts';
import { type Anchor, evaluateAnchors, generateAnchors, mostAnchorsFailing } from './anchors.ts';
import { detectDrift, materialChanges } from './change.ts';
import type { WindowMeasurement } from './measurement.ts';
import type { AgentProfile } from './profile.ts';
import type { LearningSettings } from './settings.ts';

/**
 * The learning state machine of the spec (States and transitions, Agent profile learning). Pure: the
 * caller reads the data, learns profiles and stores the state; every function takes the time.
 */
export const PHASES = ['pre-profile', 'bootstrap', 'steady-state'] as const;
export type Phase = (typeof PHASES)[number];

/** Why a profile was (re)learned. `minimum-data`, `anchors-failing` and `regenerate` start a bootstrap from scratch. */
export const LEARN_REASONS = ['minimum-data', 'bootstrap-cycle', 'drift', 'refresh', 'anchors-failing', 'regenerate'] as const;
export type LearnReason = (typeof LEARN_REASONS)[number];

export interface LearningState {
  tenantId: string;
  agentId: string;
  phase: Phase;
  profile: AgentProfile | null;
  anchors: Anchor[];
  /** Set by a reset: data from before it is not learned from. Null: the whole learning window counts. */
  trainingStartedAt: string | null;
  lastLearnedAt: string | null;
  lastLearnReason: LearnReason | null;
  /** When the last learning cycle ran (and evaluated the anchors). */
  lastCycleAt: string | null;
  /** Where the window the last cycle measured ended; the next cycle measures from here. */
  measuredUntil: string | null;
  /** When the next learning cycle is due; null while a pre-profile agent waits for traces. */
  nextLearningAt: string | null;
  /** Learning cycles of the current bootstrap. */
  bootstrapCycles: number;
  /** Consecutive bootstrap cycles whose profile did not change materially. */
  stableCycles: number;
  /** The last bootstrap profile compared with the one before it. */
  lastComparison: { at: string; changes: string[] } | null;
  lastDrift: { at: string; reasons: string[]; relearned: boolean } | null;
  /** Learning cycles in a row that failed (absent in states stored before it was kept: none). */
  failedCycles?: number;
  /** Optimistic concurrency: the store writes a state only over the version it was read at. */
  version: number;
}

const FROM_SCRATCH: ReadonlySet<LearnReason> = new Set(['minimum-data', 'anchors-failing', 'regenerate']);

const iso = (ms: number) => new Date(ms).toISOString();
const msOf = (at: string | null) => (at === null ? null : Date.parse(at));
const later = (now: Date, ms: number) => iso(now.getTime() + ms);

/** An agent nothing has been learned about: pre-profile, waiting for traces. */
export function newLearningState(tenantId: string, agentId: string): LearningState {
  return {
    tenantId,
    agentId,
    phase: 'pre-profile',
    profile: null,
    anchors: [],
    trainingStartedAt: null,
    lastLearnedAt: null,
    lastLearnReason: null,
    lastCycleAt: null,
    measuredUntil: null,
    nextLearningAt: null,
    bootstrapCycles: 0,
    stableCycles: 0,
    lastComparison: null,
    lastDrift: null,
    version: 0,
  };
}

/** Traces arrived: a pre-profile agent waiting for data gets a cycle now. Undefined when nothing changes. */
export function onTracesArrived(state: LearningState, now: Date): LearningState | undefined {
  if (state.phase !== 'pre-profile' || state.nextLearningAt !== null) return undefined;
  return { ...state, nextLearningAt: now.toISOString() };
}

/** Spec: every incoming trace is checked against the profile in steady state (and only then). */
export const anomalyBaseline = (state: LearningState): AgentProfile | null => (state.phase === 'steady-state' ? state.profile : null);

export const isDue = (state: LearningState, now: Date): boolean => state.nextLearningAt !== null && Date.parse(state.nextLearningAt) <= now.getTime();

export type CyclePlan =
  /** Pre-profile below the minimum data threshold: waits, unscheduled, for more traces. */
  | { outcome: 'waiting'; state: LearningState }
  /** Steady state, anchors evaluated, nothing to re-learn. */
  | { outcome: 'checked'; state: LearningState }
  /** Learn a profile now, then hand it to `learned` with this state. */
  | { outcome: 'learn'; state: LearningState; reason: LearnReason };

const checkAfter = (now: Date, settings: LearningSettings) => later(now, settings.checkIntervalMinutes * BUCKET_MS.minute);

/** Learning disabled: the profile is kept and nothing is learned or evaluated; looked at again after the check interval. */
export function pauseCycle(state: LearningState, now: Date, settings: LearningSettings): LearningState {
  return { ...state, nextLearningAt: checkAfter(now, settings) };
}

/** A pre-profile cycle: the first profile once the training window holds the minimum data. */
export function planFirstProfile(state: LearningState, trainingTraces: number, settings: LearningSettings): CyclePlan {
  if (trainingTraces >= settings.minTraces) return { outcome: 'learn', state, reason: 'minimum-data' };
  return { outcome: 'waiting', state: { ...state, nextLearningAt: null } };
}

/**
 * A bootstrap or steady-state cycle over what happened since the last one: evaluates the anchors, then
 * picks the transition. Bootstrap always re-learns; steady state re-learns from scratch when most
 * anchors fail, on drift outside the cooldown, or when the profile is stale.
 */
export function planCycle(state: LearningState, recent: WindowMeasurement, now: Date, settings: LearningSettings): CyclePlan {
  const anchors = evaluateAnchors(state.anchors, recent, settings.anchorMinTraces, now);
  const evaluated: LearningState = { ...state, anchors, lastCycleAt: now.toISOString(), measuredUntil: iso(recent.endMs) };
  if (state.phase !== 'steady-state' || !state.profile) return { outcome: 'learn', state: evaluated, reason: 'bootstrap-cycle' };

  if (mostAnchorsFailing(anchors)) return { outcome: 'learn', state: evaluated, reason: 'anchors-failing' };
  const sinceLearned = now.getTime() - (msOf(state.lastLearnedAt) ?? 0);
  const drift = detectDrift(state.profile, recent, settings.anchorMinTraces);
  const outsideCooldown = sinceLearned >= settings.driftCooldownHours * BUCKET_MS.hour;
  const lastDrift = drift.length > 0 ? { at: now.toISOString(), reasons: drift, relearned: outsideCooldown } : state.lastDrift;
  if (drift.length > 0 && outsideCooldown) return { outcome: 'learn', state: { ...evaluated, lastDrift }, reason: 'drift' };
  if (sinceLearned >= settings.refreshDays * BUCKET_MS.day) return { outcome: 'learn', state: { ...evaluated, lastDrift }, reason: 'refresh' };
  return { outcome: 'checked', state: { ...evaluated, lastDrift, nextLearningAt: checkAfter(now, settings) } };
}

/** The wait after the n-th bootstrap cycle: growing geometrically, never beyond the refresh period. */
export function bootstrapInterval(cycle: number, settings: LearningSettings): number {
  const grown = settings.bootstrapFirstIntervalMinutes * BUCKET_MS.minute * settings.bootstrapGrowthFactor ** (cycle - 1);
  return Math.min(grown, settings.refreshDays * BUCKET_MS.day);
}

/**
 * Stores a newly learned profile with fresh anchors (evaluated on the cycle's measurement) and moves
 * the phase: from scratch into a new bootstrap; in bootstrap, compared with the previous profile and
 * converged into steady state after enough cycles without material change; steady state stays.
 */
export function learned(
  state: LearningState,
  reason: LearnReason,
  profile: AgentProfile,
  measurement: WindowMeasurement,
  now: Date,
  settings: LearningSettings,
): LearningState {
  const base: LearningState = {
    ...state,
    profile,
    anchors: evaluateAnchors(generateAnchors(profile), measurement, settings.anchorMinTraces, now),
    lastLearnedAt: now.toISOString(),
    lastLearnReason: reason,
    lastCycleAt: now.toISOString(),
    measuredUntil: iso(measurement.endMs),
  };
  if (FROM_SCRATCH.has(reason)) {
    return {
      ...base,
      phase: 'bootstrap',
      bootstrapCycles: 1,
      stableCycles: 0,
      lastComparison: null,
      nextLearningAt: later(now, bootstrapInterval(1, settings)),
    };
  }
  if (reason === 'bootstrap-cycle') {
    const changes = state.profile ? materialChanges(state.profile, profile) : [];
    const stableCycles = changes.length === 0 ? state.stableCycles + 1 : 0;
    const bootstrapCycles = state.bootstrapCycles + 1;
    const lastComparison = { at: now.toISOString(), changes };
    if (stableCycles >= settings.convergenceCycles) {
      return { ...base, phase: 'steady-state', bootstrapCycles, stableCycles, lastComparison, nextLearningAt: checkAfter(now, settings) };
    }
    return {
      ...base,
      phase: 'bootstrap',
      bootstrapCycles,
      stableCycles,
      lastComparison,
      nextLearningAt: later(now, bootstrapInterval(bootstrapCycles, settings)),
    };
  }
  return { ...base, phase: 'steady-state', nextLearningAt: checkAfter(now, settings) };
}

/** Spec: reset-training → pre-profile, learning state and profile cleared; only data from now on counts. */
export function resetTraining(state: LearningState, now: Date): LearningState {
  return { ...newLearningState(state.tenantId, state.agentId), trainingStartedAt: now.toISOString(), version: state.version };
}

/** Where the data a profile is learned from begins: the learning window, cut at a reset. */
export function trainingWindowStart(state: LearningState, now: Date, settings: LearningSettings): number {
  const windowStart = now.getTime() - settings.windowDays * BUCKET_MS.day;
  return Math.max(windowStart, msOf(state.trainingStartedAt) ?? windowStart);
}

/**
 * The window a cycle measures: from where the last one ended (within the training window) until the
 * measurement delay before now, so that traces finishing or arriving late are still measured once.
 */
export function recentWindow(state: LearningState, now: Date, settings: LearningSettings): { startMs: number; endMs: number } {
  const endMs = now.getTime() - settings.measurementDelayMinutes * BUCKET_MS.minute;
  return { startMs: Math.min(endMs, Math.max(trainingWindowStart(state, now, settings), msOf(state.measuredUntil) ?? 0)), endMs };
}
