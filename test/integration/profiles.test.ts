import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { noMetricsSink } from '#shared/adapters/metrics-sink.ts';
import { compactRollups } from '#shared/domain/analytics/compaction.ts';
import { NotFoundError, ValidationError } from '#shared/domain/errors.ts';
import { toIngestMessages } from '#shared/domain/ingest/messages.ts';
import { persistTelemetry } from '#shared/domain/ingest/persist.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { type Narrator, templateNarrator } from '#shared/domain/profiles/narrative.ts';
import {
  editAgentProfile,
  getAgentProfile,
  type LearningDeps,
  regenerateAgentProfile,
  resetAgentTraining,
  runDueLearningCycles,
} from '#shared/domain/profiles/service.ts';
import { DEFAULT_LEARNING_SETTINGS, type LearningSettings } from '#shared/domain/profiles/settings.ts';
import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import { getTrace } from '#shared/domain/spans/queries.ts';
import type { Store } from '#shared/domain/store.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { startTestLake } from '../support/lake.ts';
import { canonicalSpan } from '../support/spans.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;

let store: Store;
let lake: Awaited<ReturnType<typeof startTestLake>>;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-profiles'));
  lake = await startTestLake();
});
afterAll(async () => {
  await stop();
  await lake.remove();
});

let now = new Date('2026-11-20T10:00:00Z');
const clock = { now: () => now };
const advance = (ms: number) => (now = new Date(now.getTime() + ms));
const errors: string[] = [];
const deps = (over: { settings?: Partial<LearningSettings>; narrator?: Narrator; store?: Store } = {}): LearningDeps => ({
  store: over.store ?? store,
  clock,
  narrator: over.narrator ?? templateNarrator,
  settings: { ...DEFAULT_LEARNING_SETTINGS, ...over.settings },
  reportError: (message) => errors.push(message),
});
const runJob = (over: Parameters<typeof deps>[0] = {}) => runDueLearningCycles(deps(over), { maxAgents: 50, budgetMs: 60_000 });

let tenants = 0;
async function newTenant(): Promise<string> {
  const id = `tnt_profiles_${++tenants}`;
  await store.tenants.create({ id, ownerUserId: 'usr_x', subscription: newTrialSubscription(now), createdAt: now.toISOString() });
  return id;
}

interface TraceShape {
  tools?: string[];
  errorType?: string;
  durationMs?: number;
}

let traces = 0;
const span = (traceId: string, spanId: string, agentName: string, startTimeMs: number, over: Partial<CanonicalSpan>): CanonicalSpan =>
  canonicalSpan({ traceId, spanId, name: 'answer ticket', kind: 'agent', agentName, startTimeMs, endTimeMs: startTimeMs + 1000, cost: 0.002, ...over });

/** `count` traces of `agentName` spread over the hour before now, through the real ingest path; answers their ids. */
async function send(tenantId: string, agentName: string, count: number, shape: TraceShape = {}): Promise<string[]> {
  const { tools = ['search', 'answer'], errorType, durationMs = 1000 } = shape;
  const ids: string[] = [];
  const spans: CanonicalSpan[] = [];
  for (let i = 0; i < count; i++) {
    const traceId = `trace-${++traces}`;
    const start = now.getTime() - HOUR + Math.floor((i * (HOUR - MINUTE)) / count);
    ids.push(traceId);
    spans.push(span(traceId, 'root', agentName, start, { endTimeMs: start + durationMs, status: errorType ? 'error' : 'ok', errorType: errorType ?? null }));
    spans.push(
      ...tools.map((tool, t) =>
        span(traceId, `tool-${t}`, agentName, start + t + 1, { parentSpanId: 'root', kind: 'tool', name: tool, toolName: tool, cost: null }),
      ),
    );
  }
  const persistDeps = { store, clock, ids: randomIds, queue: { send: async () => {} }, metricsSink: noMetricsSink, lake };
  for (const message of toIngestMessages(tenantId, now.getTime(), { spans, signals: [], logs: [] })) {
    if (message.kind === 'telemetry') await persistTelemetry([message], persistDeps);
  }
  await compactRollups({ store, clock }, 10_000);
  return ids;
}

const agentIdOf = async (tenantId: string, name: string) => (await store.agents.idForName(tenantId, name))!;
const dueNow = async () => (await store.profiles.due(now, 100)).map((d) => d.agentId);

describe('profile learning on the table (dynalite)', () => {
  let tenantId: string;
  let agentId: string;

  it('the first traces enrol a new agent, pre-profile; a cycle below the minimum leaves it waiting, out of the due index', async () => {
    tenantId = await newTenant();
    await send(tenantId, 'support-bot', 30);
    agentId = await agentIdOf(tenantId, 'support-bot');
    expect(await store.profiles.get(tenantId, agentId)).toMatchObject({ phase: 'pre-profile', profile: null, nextLearningAt: now.toISOString() });
    expect(await dueNow()).toContain(agentId);

    expect(await runJob()).toMatchObject({ outcomes: { waiting: 1 } });
    expect(await store.profiles.get(tenantId, agentId)).toMatchObject({ phase: 'pre-profile', nextLearningAt: null });
    expect(await dueNow()).not.toContain(agentId);
    expect((await getAgentProfile(tenantId, agentId, deps())).profile).toBeNull();
  });

  it('reaching the minimum data threshold learns the first profile from rollups and sampled spans → bootstrap', async () => {
    advance(10 * MINUTE);
    await send(tenantId, 'support-bot', 30);
    expect(await dueNow()).toContain(agentId);
    expect(await runJob()).toMatchObject({ outcomes: { learn: 1 } });

    const view = await getAgentProfile(tenantId, agentId, deps());
    expect(view).toMatchObject({ agentId, agentName: 'support-bot', phase: 'bootstrap', learningEnabled: true, lastLearnedAt: now.toISOString() });
    expect(view.nextLearningAt).toBe(new Date(now.getTime() + HOUR).toISOString());
    expect(view.profile).toMatchObject({ basis: { traceCount: 60, sampledTraces: 60 }, errorPatterns: { rate: 0 }, narratedBy: 'template' });
    expect(view.profile!.toolPatterns.distribution.map((t) => [t.tool, t.traceRate])).toEqual([
      ['answer', 1],
      ['search', 1],
    ]);
    expect(view.anchors.map((a) => `${a.id}:${a.status}`)).toEqual([
      'error-rate:passing',
      'average-latency:passing',
      'p95-latency:passing',
      'cost-per-trace:passing',
      'tool-usage:answer:passing',
      'tool-usage:search:passing',
    ]);
    expect(await dueNow()).not.toContain(agentId);
  });

  it('the next bootstrap cycle reads only what is new: a burst of errors fails anchors and shows in the refined profile', async () => {
    advance(HOUR);
    await send(tenantId, 'support-bot', 20, { tools: [], errorType: 'RateLimitError' });
    const measuredUntil = Date.parse((await store.profiles.get(tenantId, agentId))!.measuredUntil!);
    const newestReads: Array<[number, number]> = [];
    const spying: Store = {
      ...store,
      traces: {
        ...store.traces,
        newestOfAgent: (t, a, start, end, limit) => (newestReads.push([start, limit]), store.traces.newestOfAgent(t, a, start, end, limit)),
      },
    };
    expect(await runJob({ store: spying })).toMatchObject({ outcomes: { learn: 1 } });
    // The anchors measured the hour since the last cycle; the sample per read never exceeds the setting.
    expect(newestReads[0]).toEqual([measuredUntil, DEFAULT_LEARNING_SETTINGS.sampleTraces]);
    expect(newestReads.every(([, limit]) => limit <= DEFAULT_LEARNING_SETTINGS.sampleTraces)).toBe(true);

    const view = await getAgentProfile(tenantId, agentId, deps());
    expect(view).toMatchObject({ phase: 'bootstrap', learning: { bootstrapCycles: 2, stableCycles: 0, lastReason: 'bootstrap-cycle' } });
    expect(view.learning.lastComparison!.changes).toContain('error rate 0.0% → 25.0%');
    expect(view.profile!.errorPatterns).toMatchObject({ rate: 0.25, commonTypes: [{ type: 'RateLimitError', share: 1 }] });
    // Measured up to the measurement delay before now: the failure that started in the last 5 minutes waits for the next cycle.
    expect(view.anchors.find((a) => a.id === 'error-rate')).toMatchObject({ status: 'failing', lastValue: 1, lastSampleSize: 19 });
    expect(view.anchors.find((a) => a.id === 'tool-usage:search')).toMatchObject({ status: 'failing', lastValue: 0 });
    expect(view.profile!.insights.join(' ')).toContain('RateLimitError');
    expect(view.nextLearningAt).toBe(new Date(now.getTime() + 2 * HOUR).toISOString());
  });

  it('a manual edit is validated, moves the anchors, and lasts until the next cycle re-learns', async () => {
    const edited = await editAgentProfile(tenantId, agentId, { errorPatterns: { rate: 0.5 }, insights: ['a', 'b', 'c'] }, deps());
    expect(edited.profile).toMatchObject({ errorPatterns: { rate: 0.5 }, insights: ['a', 'b', 'c'], editedAt: now.toISOString() });
    expect(edited.anchors.find((a) => a.id === 'error-rate')).toMatchObject({ max: 1, lastValue: 1, status: 'passing' });
    await expect(editAgentProfile(tenantId, agentId, { volumeCharacteristics: { typicalLatency: { p50Ms: 9000, p95Ms: 100 } } }, deps())).rejects.toThrow(
      ValidationError,
    );

    advance(2 * HOUR);
    await send(tenantId, 'support-bot', 12);
    expect(await runJob()).toMatchObject({ outcomes: { learn: 1 } });
    const relearned = await getAgentProfile(tenantId, agentId, deps());
    expect(relearned.profile).toMatchObject({ editedAt: null });
    expect(relearned.profile!.insights).not.toEqual(['a', 'b', 'c']);
  });

  it('regenerate re-learns from scratch now; with learning disabled it is refused and cycles only reschedule', async () => {
    const regenerated = await regenerateAgentProfile(tenantId, agentId, deps());
    expect(regenerated).toMatchObject({
      phase: 'bootstrap',
      lastLearnedAt: now.toISOString(),
      learning: { bootstrapCycles: 1, lastReason: 'regenerate', lastComparison: null },
    });

    await store.agents.update(tenantId, agentId, { learningEnabled: false }, now);
    await expect(regenerateAgentProfile(tenantId, agentId, deps())).rejects.toThrow(/Learning is disabled/);
    const before = await store.profiles.get(tenantId, agentId);
    advance(HOUR);
    await send(tenantId, 'support-bot', 12, { errorType: 'Boom' });
    expect(await runJob()).toMatchObject({ outcomes: { paused: 1 } });
    const paused = await getAgentProfile(tenantId, agentId, deps());
    expect(paused).toMatchObject({ learningEnabled: false, nextLearningAt: null, profile: before!.profile, anchors: before!.anchors });
    await store.agents.update(tenantId, agentId, { learningEnabled: true }, now);
  });

  it('reset-training clears the profile and learning state → pre-profile; only traces from then on count', async () => {
    const reset = await resetAgentTraining(tenantId, agentId, deps());
    expect(reset).toMatchObject({
      phase: 'pre-profile',
      profile: null,
      anchors: [],
      lastLearnedAt: null,
      nextLearningAt: null,
      learning: { trainingStartedAt: now.toISOString(), bootstrapCycles: 0 },
    });
    await expect(editAgentProfile(tenantId, agentId, { insights: ['a', 'b', 'c'] }, deps())).rejects.toThrow(/no profile to edit/);

    advance(HOUR + MINUTE);
    await send(tenantId, 'support-bot', 40);
    expect(await runJob()).toMatchObject({ outcomes: { waiting: 1 } });
    advance(HOUR);
    await send(tenantId, 'support-bot', 10);
    expect(await runJob()).toMatchObject({ outcomes: { learn: 1 } });
    expect((await getAgentProfile(tenantId, agentId, deps())).profile!.basis.traceCount).toBe(50);
  });

  it("another tenant's agent is not found by any profile operation", async () => {
    const other = await newTenant();
    for (const attempt of [
      () => getAgentProfile(other, agentId, deps()),
      () => editAgentProfile(other, agentId, { insights: ['a', 'b', 'c'] }, deps()),
      () => regenerateAgentProfile(other, agentId, deps()),
      () => resetAgentTraining(other, agentId, deps()),
    ]) {
      await expect(attempt()).rejects.toThrow(NotFoundError);
    }
  });

  it('an agent without traces cannot be regenerated; a failing narrator falls back to the template', async () => {
    const quiet = await store.agents.ensure(agentRecord(tenantId, 'agt_quiet', now.toISOString(), { name: 'quiet-bot', source: 'explicit' }));
    expect(await getAgentProfile(tenantId, quiet, deps())).toMatchObject({ phase: 'pre-profile', profile: null, anchors: [], nextLearningAt: null });
    await expect(regenerateAgentProfile(tenantId, quiet, deps())).rejects.toThrow(/no finished traces/);

    const broken: Narrator = { name: 'bedrock:test', narrate: async () => Promise.reject(new Error('AccessDenied')) };
    const view = await regenerateAgentProfile(tenantId, agentId, deps({ narrator: broken }));
    expect(view.profile).toMatchObject({ narratedBy: 'template' });
    expect(errors).toContain('profile narrator failed; using the template');
  });

  it('a cycle that fails is tried again an hour later, then two, not at every run ahead of the healthy agents', async () => {
    const flakyTenant = await newTenant();
    await send(flakyTenant, 'flaky-bot', 60);
    const flaky = await agentIdOf(flakyTenant, 'flaky-bot');
    const failingRollups = { ...store.rollups, read: async () => Promise.reject(new Error('rollups unavailable')) };
    const runFailing = () => runDueLearningCycles(deps({ store: { ...store, rollups: failingRollups } as Store }), { maxAgents: 50, budgetMs: 60_000 });
    expect((await runFailing()).outcomes['failed']).toBeGreaterThanOrEqual(1);
    expect(await store.profiles.get(flakyTenant, flaky)).toMatchObject({ failedCycles: 1, nextLearningAt: new Date(now.getTime() + HOUR).toISOString() });
    expect(await dueNow()).not.toContain(flaky);
    advance(HOUR);
    expect(await dueNow()).toContain(flaky);
    await runFailing();
    expect(await store.profiles.get(flakyTenant, flaky)).toMatchObject({ failedCycles: 2, nextLearningAt: new Date(now.getTime() + 2 * HOUR).toISOString() });
    advance(HOUR);
    expect(await dueNow()).not.toContain(flaky);
    advance(HOUR);
    expect(await runJob()).toMatchObject({ outcomes: { learn: expect.any(Number) } });
    expect(await store.profiles.get(flakyTenant, flaky)).toMatchObject({ phase: 'bootstrap', failedCycles: 0 });
  });

  it('a deleted agent loses its profile at its next cycle', async () => {
    await store.agents.delete(tenantId, agentId);
    advance(2 * HOUR);
    expect(await runJob()).toMatchObject({ outcomes: { deleted: 1 } });
    expect(await store.profiles.get(tenantId, agentId)).toBeUndefined();
  });
});

describe('steady state: per-trace anomalies (dynalite)', () => {
  it('converges, then stores each unusual trace’s anomalies with the trace and shows them on it', async () => {
    const tenantId = await newTenant();
    const fast = { convergenceCycles: 1 };
    await send(tenantId, 'ops-bot', 60);
    const agentId = await agentIdOf(tenantId, 'ops-bot');
    await runJob({ settings: fast });
    advance(HOUR);
    await send(tenantId, 'ops-bot', 12);
    expect(await runJob({ settings: fast })).toMatchObject({ outcomes: { learn: 1 } });
    expect((await getAgentProfile(tenantId, agentId, deps())).phase).toBe('steady-state');

    const [usual] = await send(tenantId, 'ops-bot', 1);
    const [odd] = await send(tenantId, 'ops-bot', 1, { tools: ['search', 'delete_account'], errorType: 'PermissionDenied', durationMs: 30_000 });
    expect(await store.profiles.anomaliesOf(tenantId, usual!)).toBeUndefined();
    const found = await store.profiles.anomaliesOf(tenantId, odd!);
    expect(found).toMatchObject({ agentId, traceId: odd });
    expect(found!.anomalies.map((a) => a.type)).toEqual(['unusual-tool', 'unexpected-error', 'high-latency']);
    const { trace } = await getTrace(store, tenantId, odd!);
    expect(trace.anomalies).toEqual(found!.anomalies);
    expect((await getTrace(store, tenantId, usual!)).trace.anomalies).toEqual([]);
  });
});
