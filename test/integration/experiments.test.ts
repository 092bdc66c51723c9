import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { deleteAgent } from '#shared/domain/agents/agents.ts';
import { NotFoundError, ValidationError } from '#shared/domain/errors.ts';
import type { ExperimentDefinition } from '#shared/domain/experiments/definition.ts';
import { recordExperimentObservations } from '#shared/domain/experiments/observations.ts';
import {
  assignSubject,
  changeExperimentStatus,
  createExperiment,
  getExperiment,
  listExperiments,
  resultsOfExperiment,
} from '#shared/domain/experiments/service.ts';
import { type PersistDeps, purgeAgent } from '#shared/domain/ingest/persist.ts';
import type { StoredSignal } from '#shared/domain/spans/ports.ts';
import type { Store } from '#shared/domain/store.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { traceSummary } from '../unit/analytics/fixtures.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-experiments'));
});
afterAll(() => stop());

let n = 0;
const tenant = () => `tnt_exp_${++n}`;
let now = new Date('2026-11-20T10:00:00Z');
const deps = () => ({ store, clock: { now: () => now }, ids: randomIds });
const FIRST_PAGE = { limit: 50, skip: 0 };
const EXPIRES = Math.floor(Date.UTC(2027, 0, 1) / 1000);

const definition = {
  name: 'prompt v2',
  description: '',
  variants: [
    { key: 'A', weight: 50, config: { prompt: 'v1' } },
    { key: 'B', weight: 50, config: { prompt: 'v2' } },
  ],
  primaryMetric: 'successRate',
  trafficPercentage: 100,
};

const signal = (traceId: string | null, value: number, metadata: StoredSignal['metadata'] = {}): StoredSignal => ({
  id: randomIds.next('sig'),
  signalName: 'helpfulness',
  value,
  traceId,
  spanId: null,
  agentId: null,
  agentName: null,
  metadata,
  timestampMs: now.getTime(),
  timestamp: now.toISOString(),
});

describe('experiments in the store', () => {
  it('creates in draft, reads back, lists newest first with status and agent filters', async () => {
    const t = tenant();
    const agentId = 'agt_exp';
    await store.agents.create(agentRecord(t, agentId, now.toISOString(), { name: 'bot', source: 'explicit' }));
    const first = await createExperiment(t, definition, deps());
    now = new Date(now.getTime() + 1000);
    const second = await createExperiment(t, { ...definition, name: 'second', agentId }, deps());
    await changeExperimentStatus(t, second.id, 'start', deps());

    expect(first).toMatchObject({ name: 'prompt v2', status: 'draft', agentId: null, startedAt: null, stoppedAt: null });
    expect(first).not.toHaveProperty('tenantId');
    expect(await getExperiment(t, first.id, deps())).toEqual(first);
    expect((await listExperiments(t, {}, FIRST_PAGE, deps())).items.map((e) => e.id)).toEqual([second.id, first.id]);
    expect((await listExperiments(t, { status: 'running' }, FIRST_PAGE, deps())).items.map((e) => e.id)).toEqual([second.id]);
    expect((await listExperiments(t, { agentId }, FIRST_PAGE, deps())).items.map((e) => e.id)).toEqual([second.id]);
    expect((await listExperiments(t, { startDate: new Date(now.getTime() - 500) }, FIRST_PAGE, deps())).items.map((e) => e.id)).toEqual([second.id]);
    await expect(listExperiments(t, { agentId: 'agt_missing' }, FIRST_PAGE, deps())).rejects.toThrow(NotFoundError);
  });

  it("keeps tenants apart: another tenant's experiment and agent are not found", async () => {
    const owner = tenant();
    const other = tenant();
    const e = await createExperiment(owner, definition, deps());
    await expect(getExperiment(other, e.id, deps())).rejects.toThrow(NotFoundError);
    await expect(changeExperimentStatus(other, e.id, 'start', deps())).rejects.toThrow(NotFoundError);
    await expect(assignSubject(other, e.id, 'user-1', deps())).rejects.toThrow(NotFoundError);
    await expect(resultsOfExperiment(other, e.id, deps())).rejects.toThrow(NotFoundError);
    await expect(createExperiment(other, { ...definition, agentId: 'agt_exp' }, deps())).rejects.toThrow('Agent not found');
  });

  it('walks the lifecycle and stamps startedAt once and stoppedAt at the end', async () => {
    const t = tenant();
    const e = await createExperiment(t, definition, deps());
    now = new Date('2026-11-21T00:00:00Z');
    expect(await changeExperimentStatus(t, e.id, 'start', deps())).toMatchObject({ status: 'running', startedAt: '2026-11-21T00:00:00.000Z' });
    now = new Date('2026-11-22T00:00:00Z');
    expect(await changeExperimentStatus(t, e.id, 'pause', deps())).toMatchObject({ status: 'paused', updatedAt: '2026-11-22T00:00:00.000Z' });
    await expect(assignSubject(t, e.id, 'user-1', deps())).rejects.toThrow('The experiment is paused');
    expect(await changeExperimentStatus(t, e.id, 'start', deps())).toMatchObject({ status: 'running', startedAt: '2026-11-21T00:00:00.000Z' });
    expect((await assignSubject(t, e.id, 'user-1', deps())).variant).toMatch(/^[AB]$/);
    expect(await changeExperimentStatus(t, e.id, 'stop', deps())).toMatchObject({ status: 'stopped', stoppedAt: '2026-11-22T00:00:00.000Z' });
    await expect(changeExperimentStatus(t, e.id, 'start', deps())).rejects.toThrow('Cannot start an experiment that is stopped');
  });

  it('lets exactly one of ten concurrent starts win; the others are told it is running', async () => {
    const t = tenant();
    const e = await createExperiment(t, definition, deps());
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => changeExperimentStatus(t, e.id, 'start', deps())));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(o.reason).toBeInstanceOf(ValidationError);
      expect((o.reason as Error).message).toMatch(/^Cannot start an experiment that is running/);
    }
  });

  it('a concurrent pause and stop: whichever lands second sees the first', async () => {
    const t = tenant();
    const e = await createExperiment(t, definition, deps());
    await changeExperimentStatus(t, e.id, 'start', deps());
    await Promise.allSettled([changeExperimentStatus(t, e.id, 'pause', deps()), changeExperimentStatus(t, e.id, 'stop', deps())]);
    // pause then stop ends stopped; stop then pause is refused and also ends stopped.
    expect((await getExperiment(t, e.id, deps())).status).toBe('stopped');
  });
});

describe('experiment observations', () => {
  async function runningExperiment(t: string) {
    const e = await createExperiment(t, definition, deps());
    await changeExperimentStatus(t, e.id, 'start', deps());
    return e.id;
  }
  const tagged = (experimentId: string, traceId: string, variant: string, over: Parameters<typeof traceSummary>[0] = {}) =>
    traceSummary({ traceId, experimentId, variant, ...over });

  it("counts a signal for its trace's variant whichever arrives first", async () => {
    const t = tenant();
    const id = await runningExperiment(t);
    // The trace first, then a signal naming it.
    const early = tagged(id, 'trace-early', 'A');
    await store.traces.putSummary(t, early, 1, EXPIRES);
    await recordExperimentObservations(t, [{ summary: early, revision: 1 }], [], EXPIRES, store);
    const afterTrace = signal('trace-early', 0.9);
    await store.signals.put(t, [afterTrace], EXPIRES);
    await recordExperimentObservations(t, [], [afterTrace], EXPIRES, store);

    // A signal first (its trace unknown yet), then the trace.
    const beforeTrace = signal('trace-late', 0.4);
    await store.signals.put(t, [beforeTrace], EXPIRES);
    await recordExperimentObservations(t, [], [beforeTrace], EXPIRES, store);
    const late = tagged(id, 'trace-late', 'B');
    await store.traces.putSummary(t, late, 1, EXPIRES);
    await recordExperimentObservations(t, [{ summary: late, revision: 1 }], [], EXPIRES, store);

    const { traces, signals } = await store.experiments.observations(t, id);
    expect(traces.map((o) => [o.traceId, o.variant]).sort()).toEqual([
      ['trace-early', 'A'],
      ['trace-late', 'B'],
    ]);
    expect(signals.map((o) => [o.traceId, o.variant, o.value]).sort()).toEqual([
      ['trace-early', 'A', 0.9],
      ['trace-late', 'B', 0.4],
    ]);
  });

  it('takes experiment tags from signal metadata, native or OTLP-style', async () => {
    const t = tenant();
    const id = await runningExperiment(t);
    await recordExperimentObservations(
      t,
      [],
      [signal(null, 1, { experimentId: id, variant: 'A' }), signal('untagged-trace', 2, { 'experiment.id': id, 'experiment.variant': 'B' })],
      EXPIRES,
      store,
    );
    const { signals } = await store.experiments.observations(t, id);
    expect(signals.map((o) => [o.variant, o.value]).sort()).toEqual([
      ['A', 1],
      ['B', 2],
    ]);
  });

  it('ignores tags naming no experiment of the tenant', async () => {
    const t = tenant();
    const other = tenant();
    const id = await runningExperiment(other);
    await recordExperimentObservations(
      t,
      [{ summary: tagged(id, 'trace-x', 'A'), revision: 1 }],
      [signal(null, 1, { experimentId: 'exp_unknown', variant: 'A' })],
      EXPIRES,
      store,
    );
    expect(await store.experiments.observations(t, id)).toEqual({ traces: [], signals: [] });
    expect(await store.experiments.observations(other, id)).toEqual({ traces: [], signals: [] });
    expect(await store.experiments.observations(t, 'exp_unknown')).toEqual({ traces: [], signals: [] });
  });

  it('keeps the newest summary of a trace: an older computation does not overwrite it', async () => {
    const t = tenant();
    const id = await runningExperiment(t);
    const partial = tagged(id, 'trace-1', 'A', { complete: false, spanCount: 1, status: 'ok' });
    const whole = tagged(id, 'trace-1', 'A', { complete: true, spanCount: 3, status: 'error' });
    await recordExperimentObservations(t, [{ summary: whole, revision: 20 }], [], EXPIRES, store);
    await recordExperimentObservations(t, [{ summary: partial, revision: 10 }], [], EXPIRES, store);
    const { traces } = await store.experiments.observations(t, id);
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({ complete: true, status: 'error', spanCount: 3 });
  });

  it('results read the observations of the experiment', async () => {
    const t = tenant();
    const id = await runningExperiment(t);
    const summaries = Array.from({ length: 6 }, (_, i) => ({
      summary: tagged(id, `trace-${i}`, i % 2 ? 'B' : 'A', { status: i === 0 ? 'error' : 'ok' }),
      revision: 1,
    }));
    await recordExperimentObservations(t, summaries, [], EXPIRES, store);
    const results = await resultsOfExperiment(t, id, deps());
    expect(results.variants.map((v) => [v.key, v.traces, v.successRate])).toEqual([
      ['A', 3, 0.666667],
      ['B', 3, 1],
    ]);
    expect(results.verdict.outcome).toBe('insufficient_data');
  });
});

describe('what experiment results leave out', () => {
  async function running(t: string, over: Partial<ExperimentDefinition> = {}) {
    const e = await createExperiment(t, { ...definition, ...over }, deps());
    await changeExperimentStatus(t, e.id, 'start', deps());
    return e.id;
  }
  const agentTrace = (experimentId: string, traceId: string, agentId: string, over: Parameters<typeof traceSummary>[0] = {}) => ({
    summary: traceSummary({ traceId, experimentId, variant: 'A', agentId, ...over }),
    revision: 1,
  });
  const agentSignal = (traceId: string, agentId: string): StoredSignal => ({ ...signal(traceId, 1), agentId });
  async function record(t: string, traces: ReadonlyArray<ReturnType<typeof agentTrace>>, signals: StoredSignal[] = []) {
    for (const { summary } of traces) await store.traces.putSummary(t, summary, 1, EXPIRES);
    await store.signals.put(t, signals, EXPIRES);
    await recordExperimentObservations(t, traces, signals, EXPIRES, store);
  }
  const countedIn = async (t: string, id: string) => {
    const results = await resultsOfExperiment(t, id, deps());
    return { traces: results.traces.finished, helpfulness: results.variants[0]!.signals['helpfulness']?.count ?? 0 };
  };

  it("counts only the traces and signals of the experiment's own agent", async () => {
    const t = tenant();
    await store.agents.create(agentRecord(t, 'agt_support', now.toISOString(), { name: 'support-bot', source: 'explicit' }));
    const id = await running(t, { agentId: 'agt_support' });
    await record(
      t,
      [agentTrace(id, 'support-trace', 'agt_support'), agentTrace(id, 'billing-trace', 'agt_billing')],
      [agentSignal('support-trace', 'agt_support'), agentSignal('billing-trace', 'agt_billing')],
    );
    expect(await countedIn(t, id)).toEqual({ traces: 1, helpfulness: 1 });
  });

  it('counts the traces started up to the stop, with their late spans and signals, and none started after it', async () => {
    const t = tenant();
    const id = await running(t);
    const stoppedAtMs = now.getTime();
    await record(t, [agentTrace(id, 'before-stop', 'agt_1', { startTimeMs: stoppedAtMs - 60_000, complete: false })]);
    await changeExperimentStatus(t, id, 'stop', deps());
    now = new Date(stoppedAtMs + 120_000);
    await record(
      t,
      [
        agentTrace(id, 'before-stop', 'agt_1', { startTimeMs: stoppedAtMs - 60_000, spanCount: 2 }),
        agentTrace(id, 'after-stop', 'agt_1', { startTimeMs: stoppedAtMs + 1 }),
      ],
      [agentSignal('before-stop', 'agt_1'), agentSignal('after-stop', 'agt_1'), { ...signal(null, 1, { experimentId: id, variant: 'A' }), agentId: 'agt_1' }],
    );
    expect(await countedIn(t, id)).toEqual({ traces: 1, helpfulness: 1 });
  });

  it("stops a deleted agent's experiments and leaves its traces and signals out of every experiment", async () => {
    const t = tenant();
    for (const [agentId, name] of [
      ['agt_doomed', 'doomed-bot'],
      ['agt_kept', 'kept-bot'],
    ]) {
      await store.agents.create(agentRecord(t, agentId!, now.toISOString(), { name: name!, source: 'explicit' }));
    }
    const ofDoomed = await running(t, { agentId: 'agt_doomed' });
    const draftOfDoomed = (await createExperiment(t, { ...definition, agentId: 'agt_doomed' }, deps())).id;
    const ofAnyAgent = await running(t);
    await record(
      t,
      [agentTrace(ofDoomed, 'doomed-1', 'agt_doomed'), agentTrace(ofAnyAgent, 'doomed-2', 'agt_doomed'), agentTrace(ofAnyAgent, 'kept-1', 'agt_kept')],
      [agentSignal('doomed-1', 'agt_doomed'), agentSignal('doomed-2', 'agt_doomed'), agentSignal('kept-1', 'agt_kept')],
    );
    now = new Date(now.getTime() + 60_000);
    const queued: unknown[] = [];
    await deleteAgent(t, 'agt_doomed', { ...deps(), queue: { send: async (_, messages) => void queued.push(...messages) } });

    for (const id of [ofDoomed, draftOfDoomed]) expect(await getExperiment(t, id, deps())).toMatchObject({ status: 'stopped', stoppedAt: now.toISOString() });
    await expect(assignSubject(t, ofDoomed, 'user-1', deps())).rejects.toThrow('The experiment is stopped');
    expect(await countedIn(t, ofDoomed)).toEqual({ traces: 0, helpfulness: 0 });
    expect(await countedIn(t, ofAnyAgent)).toEqual({ traces: 1, helpfulness: 1 });
    expect((await getExperiment(t, ofAnyAgent, deps())).status).toBe('running');
  });

  it('answers the agent deleted when stopping its experiments fails after the delete, and leaves them to the purge', async () => {
    const t = tenant();
    await store.agents.create(agentRecord(t, 'agt_stormy', now.toISOString(), { name: 'stormy-bot', source: 'explicit' }));
    const id = await running(t, { agentId: 'agt_stormy' });
    const queued: unknown[] = [];
    const failingPage = {
      ...deps().store,
      experiments: {
        ...store.experiments,
        page: async () => {
          throw new Error('throttled');
        },
      },
    };
    const reported: string[] = [];
    const answer = await deleteAgent(t, 'agt_stormy', {
      ...deps(),
      store: failingPage,
      queue: { send: async (_, messages) => void queued.push(...messages) },
      reportError: (text, err) => reported.push(`${text}: ${(err as Error).message}`),
    });

    expect(answer).toEqual({ id: 'agt_stormy', deleted: true });
    expect(reported).toEqual(['The experiments of deleted agent agt_stormy were not stopped; its purge stops them: throttled']);
    expect(await store.agents.get(t, 'agt_stormy')).toBeUndefined();
    expect(queued).toEqual([{ kind: 'purge-agent', tenantId: t, agentId: 'agt_stormy' }]);
    await purgeAgent({ kind: 'purge-agent', tenantId: t, agentId: 'agt_stormy' }, { ...deps(), queue: { send: async () => {} } } as unknown as PersistDeps);
    expect((await getExperiment(t, id, deps())).status).toBe('stopped');
  });

  it("the purge stops the deleted agent's experiments when the request that deleted the agent did not", async () => {
    const t = tenant();
    await store.agents.create(agentRecord(t, 'agt_gone', now.toISOString(), { name: 'gone-bot', source: 'explicit' }));
    const id = await running(t, { agentId: 'agt_gone' });
    await purgeAgent({ kind: 'purge-agent', tenantId: t, agentId: 'agt_gone' }, { ...deps(), queue: { send: async () => {} } } as unknown as PersistDeps);
    expect((await getExperiment(t, id, deps())).status).toBe('stopped');
  });
});
