import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import type { AlertConfigPatch, LlmAlertType } from '#shared/domain/alerts/config.ts';
import { type EvaluationDeps, type EvaluationSettings, evaluateTrace } from '#shared/domain/evaluation/evaluate.ts';
import { builtinJudge } from '#shared/domain/evaluation/heuristics/index.ts';
import { type Judge, JudgeAnswerError } from '#shared/domain/evaluation/judge.ts';
import { changeExperimentStatus, createExperiment, resultsOfExperiment } from '#shared/domain/experiments/service.ts';
import type { PlanKey } from '#shared/domain/plans/plans.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { QueuePort } from '#shared/domain/ports.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import { type EvaluatePorts, evaluateHandler } from '../../functions/workers/evaluate.ts';
import { type TraceSpec, traceOf } from '../fixtures/judge/build.ts';
import { LABELLED_TRACES } from '../fixtures/judge/traces.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { lambdaContext } from '../support/http-event.ts';

// Every plan includes evaluations today; here the starter plan does not, to prove the entitlement is honoured.
vi.mock('#shared/domain/plans/plans.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#shared/domain/plans/plans.ts')>();
  const starter = { ...actual.PLANS.starter, features: { ...actual.PLANS.starter.features, evaluations: false } };
  return { ...actual, PLANS: { ...actual.PLANS, starter } };
});

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-evaluation'));
});
afterAll(() => stop());

let now = Date.parse('2026-11-20T10:00:00Z');
const clock = { now: () => new Date(now) };
const DAY = '2026-11-20';
const settings: EvaluationSettings = { dailyBudget: 100, maxInputTokens: 6000 };

function recordingQueue() {
  const sent: Array<{ queueId: string; messages: readonly unknown[] }> = [];
  const queue: QueuePort = { send: async (queueId, messages) => void sent.push({ queueId, messages }) };
  return { queue, sent };
}

/** Counts the judge's calls per type. */
function countingJudge(inner: Judge = builtinJudge) {
  const calls: LlmAlertType[] = [];
  const judge: Judge = { name: inner.name, judge: (type, t) => (calls.push(type), inner.judge(type, t)) };
  return { judge, calls };
}

let n = 0;
async function world(options: { plan?: PlanKey; alertConfig?: AlertConfigPatch } = {}) {
  const tenantId = `tnt_eval_${++n}`;
  await store.tenants.create({
    id: tenantId,
    ownerUserId: 'usr_1',
    subscription: { ...newTrialSubscription(clock.now()), plan: options.plan ?? 'trial' },
    createdAt: clock.now().toISOString(),
  });
  const agentId = `agt_eval_${n}`;
  const iso = clock.now().toISOString();
  await store.agents.create(agentRecord(tenantId, agentId, iso, { name: `bot-${n}`, source: 'explicit' }));
  await store.agents.setAlertConfig(tenantId, agentId, options.alertConfig ?? { llmAnalysis: { enabled: true } }, clock.now());
  async function trace(id: string, spec: TraceSpec, tags: Pick<TraceSummary, 'experimentId' | 'variant'> = { experimentId: null, variant: null }) {
    const { summary, spans } = traceOf(id, spec);
    await store.traces.putSpans(
      tenantId,
      spans.map((s) => ({ ...s, agentId })),
      2_000_000_000,
      now,
    );
    await store.traces.putSummary(tenantId, { ...summary, ...tags, agentId, agentName: `bot-${n}` }, now, 2_000_000_000);
    return { kind: 'evaluate-trace' as const, tenantId, traceId: id };
  }
  return { tenantId, agentId, trace };
}

const fixture = (id: string) => LABELLED_TRACES.find((t) => t.id === id)!.trace;
const deps = (over: Partial<EvaluationDeps> = {}): EvaluationDeps => ({
  store,
  judge: builtinJudge,
  clock,
  ids: randomIds,
  queue: recordingQueue().queue,
  settings,
  ...over,
});
const evaluations = async (tenantId: string, traceId: string) =>
  Object.fromEntries((await store.signals.list(tenantId, { traceId })).map((s) => [s.signalName, s]));

describe('evaluating a finished trace', () => {
  it('raises an alert for each type at or above its threshold, with the reasoning, and keeps every verdict as a signal', async () => {
    const w = await world({ alertConfig: { llmAnalysis: { enabled: true }, contacts: { email: [{ address: 'oncall@example.com', enabled: true }] } } });
    const job = await w.trace('loop-1', fixture('stuck-same-search'));
    const { queue, sent } = recordingQueue();
    const result = await evaluateTrace(job, deps({ queue }));
    // The built-in judge costs nothing; the stuck verdict opened the agent's first stuck alert.
    expect(result).toEqual({
      outcome: 'evaluated',
      scores: { hallucination: 0, nsfw: 0, stuck: 0.8, quality: 0.05 },
      alerted: ['stuck'],
      alertsRaised: 1,
      judgeCalls: 4,
      judgeCost: 0,
    });

    const [alert] = (await store.alerts.recent(w.tenantId, {}, 1000)).alerts;
    expect(alert).toMatchObject({
      type: 'stuck',
      category: 'llm',
      severity: 'warning',
      value: 0.8,
      threshold: 0.7,
      traceIds: ['loop-1'],
      message: 'trace "run" judged stuck',
      reasoning: 'Built-in heuristic: 4 identical calls to web.search with the same arguments.',
    });
    expect(sent).toEqual([
      { queueId: 'notify', messages: [{ kind: 'alert-notification', tenantId: w.tenantId, alertId: alert!.id, occurrenceKey: 'stuck:loop-1:-' }] },
    ]);

    const signals = await evaluations(w.tenantId, 'loop-1');
    expect(Object.keys(signals).sort()).toEqual(['eval.hallucination', 'eval.nsfw', 'eval.quality', 'eval.stuck']);
    expect(signals['eval.stuck']).toMatchObject({
      value: 0.8,
      agentId: w.agentId,
      traceId: 'loop-1',
      metadata: { label: 'stuck', alerted: true, judge: 'builtin', reasoning: expect.stringContaining('web.search') },
    });
    expect(signals['eval.quality']!.metadata).toMatchObject({ label: 'good', alerted: false });
    expect((await store.traces.facets(w.tenantId)).signalNames).toEqual(expect.arrayContaining(['eval.stuck', 'eval.quality']));
    expect(await store.evaluationUsage.get(w.tenantId, DAY)).toEqual({ evaluations: 1, inputTokens: 0, outputTokens: 0, cost: 0 });
  });

  it('judges nothing again for a redelivered job', async () => {
    const w = await world();
    const job = await w.trace('twice', fixture('stuck-retry-storm'));
    await evaluateTrace(job, deps());
    const { judge, calls } = countingJudge();
    expect(await evaluateTrace(job, deps({ judge }))).toEqual({ outcome: 'already-evaluated' });
    expect(calls).toEqual([]);
    expect((await store.alerts.recent(w.tenantId, {}, 1000)).alerts[0]!.occurrenceCount).toBe(1);
    expect((await store.evaluationUsage.get(w.tenantId, DAY)).evaluations).toBe(1);
  });

  it('judges only the enabled types, and no trace outside the sample', async () => {
    const w = await world({ alertConfig: { llmAnalysis: { enabled: true, alertTypes: { nsfw: { enabled: false }, quality: { enabled: false } } } } });
    const { judge, calls } = countingJudge();
    await evaluateTrace(await w.trace('some-types', fixture('clean-support')), deps({ judge }));
    expect(calls.sort()).toEqual(['hallucination', 'stuck']);

    const unsampled = await world({ alertConfig: { llmAnalysis: { enabled: true, samplingRate: 0 } } });
    expect(await evaluateTrace(await unsampled.trace('unsampled', fixture('clean-support')), deps())).toEqual({ outcome: 'not-evaluated' });
  });

  it('evaluates nothing when LLM analysis is off, the plan lacks evaluations, or the trace is gone', async () => {
    const off = await world({ alertConfig: { llmAnalysis: { enabled: false } } });
    expect(await evaluateTrace(await off.trace('off', fixture('stuck-same-search')), deps())).toEqual({ outcome: 'not-evaluated' });
    const starter = await world({ plan: 'starter' });
    expect(await evaluateTrace(await starter.trace('starter', fixture('stuck-same-search')), deps())).toEqual({ outcome: 'not-evaluated' });
    expect(await evaluateTrace({ kind: 'evaluate-trace', tenantId: off.tenantId, traceId: 'never-sent' }, deps())).toEqual({ outcome: 'trace-gone' });
    expect((await store.alerts.recent(off.tenantId, {}, 1000)).alerts).toEqual([]);
  });

  it('stops at the daily budget per tenant, and starts again the next UTC day', async () => {
    const w = await world();
    const budget = deps({ settings: { ...settings, dailyBudget: 2 } });
    expect((await evaluateTrace(await w.trace('b1', fixture('clean-coding')), budget)).outcome).toBe('evaluated');
    expect((await evaluateTrace(await w.trace('b2', fixture('clean-coding')), budget)).outcome).toBe('evaluated');
    expect(await evaluateTrace(await w.trace('b3', fixture('clean-coding')), budget)).toEqual({ outcome: 'over-budget' });
    expect((await store.evaluationUsage.get(w.tenantId, DAY)).evaluations).toBe(2);
    now += 86_400_000;
    try {
      expect((await evaluateTrace(await w.trace('b4', fixture('clean-coding')), budget)).outcome).toBe('evaluated');
    } finally {
      now -= 86_400_000;
    }
  });

  it('records what the judge’s model used, per tenant and day and on each verdict', async () => {
    const w = await world();
    const modelJudge: Judge = {
      name: 'bedrock:amazon.nova-micro-v1:0',
      judge: async (type) => ({
        verdict: { score: 0.1, label: type === 'quality' ? 'good' : 'grounded', reasoning: 'fine' } as never,
        usage: { model: 'amazon.nova-micro-v1:0', inputTokens: 1000, outputTokens: 100 },
      }),
    };
    await evaluateTrace(await w.trace('paid', fixture('clean-support')), deps({ judge: modelJudge }));
    // Nova Micro: $0.035 per million input tokens, $0.14 per million output tokens.
    const usage = await store.evaluationUsage.get(w.tenantId, DAY);
    expect(usage).toMatchObject({ evaluations: 1, inputTokens: 4000, outputTokens: 400 });
    expect(usage.cost).toBeCloseTo((4 * (1000 * 0.035 + 100 * 0.14)) / 1e6, 12);
    expect((await evaluations(w.tenantId, 'paid'))['eval.nsfw']!.metadata).toMatchObject({
      judge: 'bedrock:amazon.nova-micro-v1:0',
      judgeInputTokens: 1000,
      judgeOutputTokens: 100,
      judgeCost: 0.000049,
    });
  });
});

describe('when the judge fails', () => {
  it('keeps the verdicts it has, throws for the rest, and a retry judges only what failed', async () => {
    const w = await world();
    const job = await w.trace('flaky', fixture('hallucinated-revenue'));
    const failing: Judge = {
      name: 'builtin',
      judge: async (type, t) => {
        if (type === 'nsfw') throw new JudgeAnswerError('no valid nsfw verdict', { model: 'amazon.nova-micro-v1:0', inputTokens: 2000, outputTokens: 50 });
        return builtinJudge.judge(type, t);
      },
    };
    await expect(evaluateTrace(job, deps({ judge: failing }))).rejects.toThrow(/failed for 1 of 4 types \(nsfw: JudgeAnswerError: no valid nsfw verdict\)/);
    expect(Object.keys(await evaluations(w.tenantId, 'flaky')).sort()).toEqual(['eval.hallucination', 'eval.quality', 'eval.stuck']);
    expect((await store.alerts.recent(w.tenantId, {}, 1000)).alerts.map((a) => a.type)).toEqual(['hallucination']);
    expect(await store.evaluationUsage.get(w.tenantId, DAY)).toMatchObject({ inputTokens: 2000, outputTokens: 50 });

    const { judge, calls } = countingJudge();
    expect(await evaluateTrace(job, deps({ judge }))).toMatchObject({ outcome: 'evaluated', scores: { nsfw: 0 } });
    expect(calls).toEqual(['nsfw']);
  });

  it('the worker reports the record as failed, so SQS retries it and finally dead-letters it', async () => {
    const w = await world();
    const job = await w.trace('denied', fixture('clean-support'));
    const denied: Judge = { name: 'bedrock:x', judge: async () => Promise.reject(new Error('AccessDeniedException: not authorized')) };
    const ports = { store, judge: denied, clock, ids: randomIds, queue: recordingQueue().queue } as unknown as EvaluatePorts;
    const record = (messageId: string, body: string) => ({ messageId, body, attributes: { ApproximateReceiveCount: '1' } });
    const event = { Records: [record('m-1', JSON.stringify(job)), record('m-2', '{"kind":"evaluate-trace"}')] } as unknown as SQSEvent;
    expect((await evaluateHandler(() => ports, settings)(event, lambdaContext)).batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m-1', 'm-2']);
    expect(await evaluations(w.tenantId, 'denied')).toEqual({});

    const ok = { ...ports, judge: builtinJudge } as unknown as EvaluatePorts;
    expect(
      (await evaluateHandler(() => ok, settings)({ Records: [record('m-1', JSON.stringify(job))] } as unknown as SQSEvent, lambdaContext)).batchItemFailures,
    ).toEqual([]);
    expect(Object.keys(await evaluations(w.tenantId, 'denied'))).toHaveLength(4);
  });
});

describe('verdicts in experiments', () => {
  it('count toward the variant of the trace they judge, once each however often the trace is evaluated', async () => {
    const w = await world();
    const experimentDeps = { store, clock, ids: randomIds };
    const experiment = await createExperiment(
      w.tenantId,
      {
        name: 'judge',
        description: '',
        agentId: w.agentId,
        variants: [
          { key: 'a', weight: 50, config: {} },
          { key: 'b', weight: 50, config: {} },
        ],
        primaryMetric: 'eval.quality',
        trafficPercentage: 100,
      },
      experimentDeps,
    );
    await changeExperimentStatus(w.tenantId, experiment.id, 'start', experimentDeps);
    const job = await w.trace('tagged', fixture('hallucinated-revenue'), { experimentId: experiment.id, variant: 'b' });
    const nsfwFailing: Judge = {
      name: 'builtin',
      judge: async (type, t) => (type === 'nsfw' ? Promise.reject(new Error('throttled')) : builtinJudge.judge(type, t)),
    };
    await expect(evaluateTrace(job, deps({ judge: nsfwFailing }))).rejects.toThrow(/failed for 1 of 4 types/);
    await evaluateTrace(job, deps());
    await evaluateTrace(job, deps());

    const [a, b] = (await resultsOfExperiment(w.tenantId, experiment.id, experimentDeps)).variants;
    expect(a!.signals).toEqual({});
    const verdicts = await evaluations(w.tenantId, 'tagged');
    expect(b!.signals).toEqual(
      Object.fromEntries(['eval.hallucination', 'eval.nsfw', 'eval.quality', 'eval.stuck'].map((name) => [name, { count: 1, avg: verdicts[name]!.value }])),
    );
  });
});
