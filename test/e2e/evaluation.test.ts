import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spansOf, type TraceSpec } from '../fixtures/judge/build.ts';
import { LABELLED_TRACES } from '../fixtures/judge/traces.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
let agentId: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 }) } });
  ({ apiKey } = await service.signUp('owner@example.com'));
  agentId = (await service.api('POST', '/agents', { apiKey, body: { name: 'support-bot' } })).body.data.id;
  const configured = await service.api('PUT', `/agents/${agentId}/alerts`, {
    apiKey,
    body: {
      llmAnalysis: { enabled: true, alertTypes: { hallucination: { cooldownMinutes: 0 } } },
      thresholds: { duration: 599_000, timeout: 600_000 },
      contacts: { email: [{ address: 'oncall@example.com', enabled: true }] },
    },
  });
  expect(configured.body.data.llmAnalysis).toMatchObject({ enabled: true, samplingRate: 1 });
});
afterAll(() => service?.stop());

const fixture = (id: string) => LABELLED_TRACES.find((t) => t.id === id)!.trace;
let n = 0;
/** Sends a fixture run as native spans of support-bot (or `agentName`) and waits for every worker to finish. */
async function send(spec: TraceSpec, agentName = 'support-bot') {
  const traceId = `eval-trace-${++n}`;
  const spans = spansOf(traceId, spec, Date.now() - 60_000).map((s) => ({
    traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    name: s.name,
    kind: s.kind,
    agentName,
    startTime: s.startTimeMs,
    endTime: s.endTimeMs,
    status: s.status,
    errorType: s.errorType,
    statusMessage: s.statusMessage,
    input: s.input,
    output: s.output,
    toolName: s.toolName,
    attributes: s.attributes,
  }));
  expect((await service.api('POST', '/spans', { apiKey, body: { spans } })).status).toBe(202);
  await service.drainQueues();
  return traceId;
}
const llmAlerts = async () =>
  ((await service.api('GET', `/spans/alerts?agentId=${agentId}`, { apiKey })).body.data as Array<Record<string, any>>).filter((a) => a.category === 'llm');
const mailAbout = async (type: string) => (await service.readOutbox()).filter((m) => m.to === 'oncall@example.com' && m.subject?.includes(`${type} alert`));
const evaluationsOf = async (traceId: string) =>
  Object.fromEntries(
    ((await service.api('GET', `/signals/trace/${traceId}`, { apiKey })).body.data as Array<Record<string, any>>).map((s) => [s.signalName, s]),
  );

describe('LLM-judged alerts with the built-in judge', () => {
  it('a clean trace raises nothing, and its four evaluations show on the trace', async () => {
    const traceId = await send(fixture('clean-support'));
    expect(await llmAlerts()).toEqual([]);
    const signals = await evaluationsOf(traceId);
    expect(Object.keys(signals).sort()).toEqual(['eval.hallucination', 'eval.nsfw', 'eval.quality', 'eval.stuck']);
    for (const s of Object.values(signals)) expect(s).toMatchObject({ agentId, value: expect.any(Number), metadata: { alerted: false, judge: 'builtin' } });
  });

  it('a looping trace raises stuck, with the judge’s reasoning, and notifies once within the cooldown', async () => {
    const first = await send(fixture('stuck-same-search'));
    const [stuck] = await llmAlerts();
    expect(stuck).toMatchObject({
      type: 'stuck',
      severity: 'warning',
      status: 'open',
      value: 0.8,
      threshold: 0.7,
      traceIds: [first],
      reasoning: expect.stringMatching(/^Built-in heuristic: 4 identical calls to web\.search/),
    });
    const [mail] = await mailAbout('stuck');
    expect(mail!.text).toContain("Judge's reasoning:");
    expect(mail!.text).toMatch(/Confidence: +0\.80 \(threshold 0\.70\)/);

    const second = await send(fixture('stuck-list-read-cycle'));
    const [again] = await llmAlerts();
    expect(again).toMatchObject({ id: stuck!.id, occurrenceCount: 2, traceIds: [second, first] });
    expect(await mailAbout('stuck')).toHaveLength(1);
  });

  it('a trace with fabricated figures raises hallucination; with no cooldown each occurrence notifies', async () => {
    const first = await send(fixture('hallucinated-revenue'));
    const hallucination = (await llmAlerts()).find((a) => a.type === 'hallucination');
    expect(hallucination).toMatchObject({ severity: 'high', traceIds: [first], reasoning: expect.stringContaining('$1.5 and 23%') });
    expect((await evaluationsOf(first))['eval.hallucination']).toMatchObject({ value: 0.91, metadata: { label: 'hallucinated', alerted: true } });
    await send(fixture('hallucinated-balance'));
    expect(await mailAbout('hallucination')).toHaveLength(2);
    expect((await llmAlerts()).map((a) => a.type).sort()).toEqual(['hallucination', 'stuck']);
  });

  it('shows the evaluations in the signal summary', async () => {
    const { groups } = (await service.api('GET', '/signals/summary?signalName=eval.stuck', { apiKey })).body.data as { groups: Array<Record<string, any>> };
    expect(groups).toEqual([expect.objectContaining({ signalName: 'eval.stuck', agentId, count: 5, max: 0.8 })]);
  });

  it('evaluates nothing for an agent whose sampling rate is 0', async () => {
    const other = (await service.api('POST', '/agents', { apiKey, body: { name: 'unsampled-bot' } })).body.data.id;
    await service.api('PUT', `/agents/${other}/alerts`, { apiKey, body: { llmAnalysis: { enabled: true, samplingRate: 0 } } });
    const traceId = await send(fixture('stuck-same-search'), 'unsampled-bot');
    expect(await evaluationsOf(traceId)).toEqual({});
    expect((await service.api('PUT', `/agents/${other}/alerts`, { apiKey, body: { llmAnalysis: { samplingRate: 1.5 } } })).body.error.message).toContain(
      'llmAnalysis.samplingRate',
    );
  });
});
