import { describe, expect, it } from 'vitest';
import { detectTraceAnomalies } from '#shared/domain/profiles/anomalies.ts';
import { applyProfileEdit } from '#shared/domain/profiles/edit.ts';
import {
  anomalyBaseline,
  bootstrapInterval,
  type CyclePlan,
  isDue,
  type LearningState,
  learned,
  newLearningState,
  onTracesArrived,
  pauseCycle,
  planCycle,
  planFirstProfile,
  recentWindow,
  resetTraining,
  trainingWindowStart,
} from '#shared/domain/profiles/learning.ts';
import { measureWindow } from '#shared/domain/profiles/measurement.ts';
import { failedCycleRetryMs } from '#shared/domain/profiles/service.ts';
import { AgentWorld, agentTrace, DAY, fakeClock, HOUR, MINUTE, profileOf, type Shape, settings } from './fixtures.ts';

/**
 * The spec's table (States and transitions → Agent profile learning), row by row, on one agent whose
 * traffic the test writes as the clock moves. `cycle` is what the learning job does for a due agent.
 */
const clock = fakeClock('2026-03-02T00:00:00Z');
const world = new AgentWorld();
const EVERY = 5 * MINUTE;
const usual = (i: number): Shape => ({ errorType: i % 25 === 24 ? 'Timeout' : undefined });
let trafficUntil = clock.now().getTime();

/** Usual traffic (or `shape`) up to the clock's time. */
function trafficUntilNow(shape: (i: number) => Shape = usual) {
  world.emit(trafficUntil, clock.now().getTime(), EVERY, shape);
  trafficUntil = clock.now().getTime();
}

function cycle(state: LearningState, learningEnabled = true): { plan?: CyclePlan; state: LearningState } {
  const now = clock.now();
  if (!learningEnabled) return { state: pauseCycle(state, now, settings) };
  const trainingStart = trainingWindowStart(state, now, settings);
  let plan: CyclePlan;
  let recent = null;
  if (state.phase === 'pre-profile') {
    plan = planFirstProfile(state, world.between(trainingStart, now.getTime()).length, settings);
  } else {
    const { startMs, endMs } = recentWindow(state, now, settings);
    recent = world.measure(startMs, endMs);
    plan = planCycle(state, recent, now, settings);
  }
  if (plan.outcome !== 'learn') return { plan, state: plan.state };
  const evidence = world.evidence(trainingWindowStart(plan.state, now, settings), now.getTime());
  const profile = profileOf(evidence, now);
  const measured = recent ?? measureWindow(evidence.startMs, evidence.endMs, evidence.overall, evidence.sample);
  return { plan, state: learned(plan.state, plan.reason, profile, measured, now, settings) };
}

const minutesUntilNext = (s: LearningState) => (Date.parse(s.nextLearningAt!) - clock.now().getTime()) / MINUTE;

let state = newLearningState('tnt_1', 'agt_1');

describe('pre-profile', () => {
  it('waits, unscheduled, while the traces are below the minimum data threshold; arriving traces schedule a check', () => {
    expect(state).toMatchObject({ phase: 'pre-profile', profile: null, nextLearningAt: null });
    expect(isDue(state, clock.now())).toBe(false);

    clock.advance(2 * HOUR);
    trafficUntilNow();
    state = onTracesArrived(state, clock.now())!;
    expect(isDue(state, clock.now())).toBe(true);
    const { plan, state: next } = cycle(state);
    expect(plan?.outcome).toBe('waiting');
    expect(next).toMatchObject({ phase: 'pre-profile', profile: null, nextLearningAt: null });
    state = next;
  });

  it('learns the first profile once the minimum is reached → bootstrap, with anchors', () => {
    clock.advance(3 * HOUR);
    trafficUntilNow();
    expect(world.traces.length).toBeGreaterThanOrEqual(settings.minTraces);
    state = onTracesArrived(state, clock.now())!;
    const { plan, state: next } = cycle(state);
    expect(plan).toMatchObject({ outcome: 'learn', reason: 'minimum-data' });
    expect(next).toMatchObject({ phase: 'bootstrap', bootstrapCycles: 1, stableCycles: 0, lastLearnReason: 'minimum-data' });
    expect(next.profile?.basis.traceCount).toBe(world.traces.length);
    expect(next.anchors.map((a) => a.id)).toEqual(['error-rate', 'average-latency', 'p95-latency', 'cost-per-trace', 'tool-usage:answer', 'tool-usage:search']);
    expect(next.anchors.every((a) => a.status === 'passing')).toBe(true);
    expect(minutesUntilNext(next)).toBe(settings.bootstrapFirstIntervalMinutes);
    expect(onTracesArrived(next, clock.now())).toBeUndefined();
    state = next;
  });
});

describe('bootstrap', () => {
  it('re-learns at geometrically growing intervals, compares each profile with the previous, and converges → steady state', () => {
    const intervals: number[] = [minutesUntilNext(state)];
    let newToolSeen = false;
    for (let i = 0; i < 20 && state.phase === 'bootstrap'; i++) {
      clock.set(state.nextLearningAt!);
      // A new tool during the first hour of bootstrap: a material change.
      trafficUntilNow((n) => (i === 0 ? { ...usual(n), tools: ['search', 'lookup', 'answer'] } : usual(n)));
      const previous = state;
      const { plan, state: next } = cycle(state);
      expect(plan).toMatchObject({ outcome: 'learn', reason: 'bootstrap-cycle' });
      const changes = next.lastComparison!.changes;
      if (i === 0) expect(changes).toContain('tools now used: lookup');
      newToolSeen ||= changes.length > 0;
      expect(next.stableCycles).toBe(changes.length > 0 ? 0 : previous.stableCycles + 1);
      expect(next.bootstrapCycles).toBe(previous.bootstrapCycles + 1);
      state = next;
      if (state.phase === 'bootstrap') intervals.push(minutesUntilNext(state));
    }
    expect(newToolSeen).toBe(true);
    expect(state).toMatchObject({ phase: 'steady-state', stableCycles: settings.convergenceCycles });
    expect(intervals.length).toBeGreaterThanOrEqual(3);
    for (const [i, minutes] of intervals.entries()) expect(minutes).toBe(settings.bootstrapFirstIntervalMinutes * settings.bootstrapGrowthFactor ** i);
    expect(minutesUntilNext(state)).toBe(settings.checkIntervalMinutes);
  });

  it('never waits longer than the refresh period', () => {
    expect(bootstrapInterval(30, settings)).toBe(settings.refreshDays * DAY);
  });
});

describe('steady state', () => {
  it('drift (a new tool) inside the cooldown is noted but not learned; outside it the profile is re-learned', () => {
    const learnedAt = state.lastLearnedAt;
    const withEscalation = (n: number): Shape => ({ ...usual(n), tools: ['search', 'lookup', 'escalate', 'answer'] });
    clock.set(state.nextLearningAt!);
    trafficUntilNow(withEscalation);
    let { plan, state: next } = cycle(state);
    expect(plan?.outcome).toBe('checked');
    expect(next).toMatchObject({ phase: 'steady-state', lastLearnedAt: learnedAt, lastDrift: { reasons: ['new tools: escalate'], relearned: false } });
    expect(minutesUntilNext(next)).toBe(settings.checkIntervalMinutes);

    while (Date.parse(next.nextLearningAt!) - Date.parse(learnedAt!) < settings.driftCooldownHours * HOUR) {
      clock.set(next.nextLearningAt!);
      trafficUntilNow(withEscalation);
      ({ plan, state: next } = cycle(next));
      expect(plan?.outcome).toBe('checked');
    }
    clock.set(next.nextLearningAt!);
    trafficUntilNow(withEscalation);
    ({ plan, state: next } = cycle(next));
    expect(plan).toMatchObject({ outcome: 'learn', reason: 'drift' });
    expect(next).toMatchObject({ phase: 'steady-state', lastLearnedAt: clock.now().toISOString(), lastDrift: { relearned: true } });
    expect(next.profile!.toolPatterns.distribution.map((t) => t.tool)).toContain('escalate');
    state = next;
  });

  it('every incoming trace is checked against the profile (and only in steady state)', () => {
    const odd = agentTrace('odd', clock.now().getTime(), { tools: ['search', 'wire_money'], errorType: 'PermissionDenied' });
    const anomalies = detectTraceAnomalies(odd.summary, odd.spans, anomalyBaseline(state)!);
    expect(anomalies.map((a) => a.type)).toEqual(['unusual-tool', 'unexpected-error']);
    expect(anomalyBaseline({ ...state, phase: 'bootstrap' })).toBeNull();
    expect(anomalyBaseline(newLearningState('tnt_1', 'agt_1'))).toBeNull();
  });

  it('a significant error-rate change and a volume shift are drift too', () => {
    const profile = state.profile!;
    const start = clock.now().getTime();
    const calm = new AgentWorld().emit(start, start + HOUR, EVERY, () => ({ tools: ['search', 'lookup', 'escalate', 'answer'] }));
    expect(
      planCycle({ ...state, lastLearnedAt: new Date(start - DAY).toISOString() }, calm.measure(start, start + HOUR), new Date(start + HOUR), settings).outcome,
    ).toBe('checked');

    const failing = new AgentWorld().emit(start, start + HOUR, EVERY, () => ({ tools: ['search', 'lookup', 'escalate', 'answer'], errorType: 'Timeout' }));
    const busy = new AgentWorld().emit(start, start + HOUR, EVERY / 5, () => ({ tools: ['search', 'lookup', 'escalate', 'answer'] }));
    const quiet = new AgentWorld().emit(start, start + HOUR, 4 * EVERY, () => ({ tools: ['search', 'lookup', 'escalate', 'answer'] }));
    const old = { ...state, lastLearnedAt: new Date(start - DAY).toISOString(), profile };
    const failingPlan = planCycle(old, failing.measure(start, start + HOUR), new Date(start + HOUR), settings);
    expect(failingPlan).toMatchObject({ outcome: 'learn', reason: 'drift' });
    expect(failingPlan.state.lastDrift?.reasons[0]).toMatch(/^error rate \d+\.\d% → 100\.0%$/);
    const busyPlan = planCycle(old, busy.measure(start, start + HOUR), new Date(start + HOUR), settings);
    expect(busyPlan).toMatchObject({
      outcome: 'learn',
      reason: 'drift',
      state: { lastDrift: { reasons: [expect.stringMatching(/^volume: 60 traces where about 12 were expected$/)] } },
    });
    // Three traces where 12 are expected is a shift too: 12 is enough to judge by.
    const quietPlan = planCycle(old, quiet.measure(start, start + HOUR), new Date(start + HOUR), settings);
    expect(quietPlan.state.lastDrift?.reasons).toEqual([expect.stringMatching(/^volume: 3 traces/)]);
  });

  it('a stale profile is refreshed', () => {
    const learnedAt = Date.parse(state.lastLearnedAt!);
    let plan: CyclePlan | undefined;
    while (!plan || plan.outcome === 'checked') {
      clock.set(state.nextLearningAt!);
      trafficUntilNow((n) => ({ ...usual(n), tools: ['search', 'lookup', 'escalate', 'answer'] }));
      ({ plan, state } = cycle(state));
    }
    expect(plan).toMatchObject({ outcome: 'learn', reason: 'refresh' });
    expect(clock.now().getTime() - learnedAt).toBe(settings.refreshDays * DAY);
    expect(state).toMatchObject({ phase: 'steady-state', lastLearnReason: 'refresh' });
  });

  it('more than half of the anchors failing → bootstrap, re-learned from scratch', () => {
    clock.set(state.nextLearningAt!);
    // An hour of slow failures that call no tool: error rate, latency and tool usage all out of bounds.
    trafficUntilNow(() => ({ tools: [], errorType: 'RateLimitError', durationMs: 20_000 }));
    const { plan, state: next } = cycle(state);
    expect(plan).toMatchObject({ outcome: 'learn', reason: 'anchors-failing' });
    const failing = (plan as { state: LearningState }).state.anchors.filter((a) => a.status === 'failing').map((a) => a.id);
    expect(failing.length).toBeGreaterThan(plan!.state.anchors.length / 2);
    expect(failing).toEqual(expect.arrayContaining(['error-rate', 'average-latency', 'p95-latency', 'tool-usage:search']));
    expect(next).toMatchObject({ phase: 'bootstrap', bootstrapCycles: 1, stableCycles: 0, lastComparison: null });
    expect(next.profile!.errorPatterns.commonTypes.map((e) => e.type)).toContain('RateLimitError');
    // The window lags the clock by the measurement delay: it holds the last usual trace and 11 of the failures.
    expect(next.anchors.find((a) => a.id === 'error-rate')).toMatchObject({ status: 'failing', lastValue: expect.closeTo(11 / 12, 4) });
    state = next;
  });
});

describe('in any phase', () => {
  const someProfile = () => profileOf(world.evidence(clock.now().getTime() - 14 * DAY, clock.now().getTime()), clock.now());
  const phases = (): LearningState[] => [resetTraining(state, clock.now()), state, { ...state, phase: 'steady-state', bootstrapCycles: 7, stableCycles: 3 }];

  it('regenerate → bootstrap, re-learned from scratch', () => {
    for (const from of phases()) {
      const measured = world.measure(clock.now().getTime() - HOUR, clock.now().getTime());
      const next = learned(from, 'regenerate', someProfile(), measured, clock.now(), settings);
      expect(next).toMatchObject({ phase: 'bootstrap', bootstrapCycles: 1, stableCycles: 0, lastComparison: null, lastLearnReason: 'regenerate' });
      expect(minutesUntilNext(next)).toBe(settings.bootstrapFirstIntervalMinutes);
    }
  });

  it('reset-training → pre-profile with the learning state and the profile cleared; only later traces count', () => {
    for (const from of phases()) {
      const next = resetTraining(from, clock.now());
      expect(next).toEqual({ ...newLearningState('tnt_1', 'agt_1'), trainingStartedAt: clock.now().toISOString(), version: from.version });
    }
    const reset = resetTraining(state, clock.now());
    expect(trainingWindowStart(reset, clock.now(), settings)).toBe(clock.now().getTime());
    clock.advance(HOUR);
    trafficUntilNow();
    const counted = world.between(trainingWindowStart(reset, clock.now(), settings), clock.now().getTime()).length;
    expect(counted).toBe(12);
    expect(planFirstProfile(reset, counted, settings).outcome).toBe('waiting');
  });

  it('with learning disabled the profile is kept and nothing is learned or evaluated; the agent is looked at again later', () => {
    clock.set(state.nextLearningAt!);
    trafficUntilNow(() => ({ tools: [], errorType: 'RateLimitError' }));
    const { plan, state: next } = cycle(state, false);
    expect(plan).toBeUndefined();
    expect(next).toEqual({ ...state, nextLearningAt: new Date(clock.now().getTime() + settings.checkIntervalMinutes * MINUTE).toISOString() });
  });

  it('a manual edit lasts until the next cycle re-learns the profile', () => {
    const edited = applyProfileEdit(
      state,
      { errorPatterns: { rate: 0.5 }, identity: { useCase: 'Answers billing questions' } },
      clock.now(),
      settings.anchorMinTraces,
    );
    expect(edited.profile).toMatchObject({
      identity: { useCase: 'Answers billing questions' },
      errorPatterns: { rate: 0.5 },
      editedAt: clock.now().toISOString(),
    });
    // The anchors follow the edit and are judged on what they last measured.
    expect(edited.anchors.find((a) => a.id === 'error-rate')).toMatchObject({ max: 1, lastValue: state.anchors.find((a) => a.id === 'error-rate')!.lastValue });

    const { state: next } = cycle(edited);
    expect(next.profile).toMatchObject({ editedAt: null });
    expect(next.profile!.identity.useCase).not.toBe('Answers billing questions');
  });
});

describe('a failed learning cycle', () => {
  it('is retried after an hour, then a wait doubling with each failure in a row, never more than a day', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map((n) => failedCycleRetryMs(n) / HOUR)).toEqual([1, 2, 4, 8, 16, 24, 24]);
  });
});
