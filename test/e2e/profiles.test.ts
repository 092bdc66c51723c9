import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
let agentId: string;
beforeAll(async () => {
  service = await startTestService({
    env: {
      RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 }),
      // Bootstrap cycles a second apart instead of an hour, measuring up to the moment they run.
      PROFILE_LEARNING: JSON.stringify({ bootstrapFirstIntervalMinutes: 1 / 60, measurementDelayMinutes: 0 }),
    },
  });
  ({ apiKey } = await service.signUp('owner@example.com'));
});
afterAll(() => service?.stop());

let n = 0;
/** `count` traces of triage-bot a second apart (from half an hour ago): a root agent span and its tool calls. */
async function sendTraces(count: number, shape: { tools?: string[]; errorType?: string; fromMs?: number; everyMs?: number } = {}): Promise<string[]> {
  const { tools = ['kb.search', 'ticket.update'], errorType, fromMs = Date.now() - 30 * 60_000, everyMs = 1000 } = shape;
  const ids: string[] = [];
  const spans = Array.from({ length: count }, (_, i) => {
    const traceId = `triage-${++n}`;
    ids.push(traceId);
    const start = fromMs + i * everyMs;
    const root = {
      traceId,
      spanId: 'root',
      name: 'triage ticket',
      kind: 'agent',
      agentName: 'triage-bot',
      startTime: start,
      endTime: start + 800,
      cost: 0.001,
      ...(errorType ? { status: 'error', errorType } : {}),
    };
    return [
      root,
      ...tools.map((tool, t) => ({
        traceId,
        spanId: `tool-${t}`,
        parentSpanId: 'root',
        name: tool,
        kind: 'tool',
        toolName: tool,
        agentName: 'triage-bot',
        startTime: start + 10 + t,
        endTime: start + 20 + t,
      })),
    ];
  }).flat();
  expect((await service.api('POST', '/spans', { apiKey, body: { spans } })).status).toBe(202);
  await service.drainQueues();
  return ids;
}
const profilePath = () => `/agents/${agentId}/agent-profile`;
const getProfile = async () => (await service.api('GET', profilePath(), { apiKey })).body.data;
const anchor = (view: { anchors: Array<{ id: string }> }, id: string) => view.anchors.find((a) => a.id === id);

describe('agent profiles over HTTP', () => {
  it('a new agent is pre-profile: 200 with profile null', async () => {
    const [traceId] = await sendTraces(60);
    agentId = (await service.api('GET', '/agents', { apiKey })).body.data.find((a: { name: string }) => a.name === 'triage-bot').id;
    const res = await service.api('GET', profilePath(), { apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      agentId,
      agentName: 'triage-bot',
      phase: 'pre-profile',
      profile: null,
      anchors: [],
      learningEnabled: true,
      lastLearnedAt: null,
    });
    expect((await service.api('GET', `/spans/traces/${traceId}`, { apiKey })).body.data.anomalies).toEqual([]);
  });

  it('regenerate learns a bootstrap profile with anchors at once', async () => {
    const res = await service.api('POST', `${profilePath()}/regenerate`, { apiKey });
    expect(res.status).toBe(200);
    const view = res.body.data;
    expect(view).toMatchObject({ phase: 'bootstrap', learning: { lastReason: 'regenerate', bootstrapCycles: 1 } });
    expect(Date.parse(view.nextLearningAt)).toBeGreaterThan(Date.parse(view.lastLearnedAt));
    expect(view.profile).toMatchObject({
      identity: { maturityLevel: 'new', useCase: 'Runs "triage ticket", calling kb.search and ticket.update.' },
      errorPatterns: { rate: 0, commonTypes: [] },
      volumeCharacteristics: { typicalLatency: { p50Ms: expect.any(Number), p95Ms: expect.any(Number) }, costPerTrace: 0.001 },
      basis: { traceCount: 60 },
      narratedBy: 'template',
    });
    expect(view.profile.insights.length).toBeGreaterThanOrEqual(3);
    expect(view.profile.insights.length).toBeLessThanOrEqual(5);
    expect(view.anchors.map((a: { id: string; status: string }) => `${a.id}:${a.status}`)).toEqual([
      'error-rate:passing',
      'average-latency:passing',
      'p95-latency:passing',
      'cost-per-trace:passing',
      'tool-usage:kb.search:passing',
      'tool-usage:ticket.update:passing',
    ]);
    expect(await getProfile()).toEqual(view);
  });

  it('a burst of errors fails anchors at the next learning cycle and shows in the next profile', async () => {
    const { nextLearningAt, learning } = await getProfile();
    await sendTraces(20, { tools: [], errorType: 'RateLimitError', fromMs: Date.parse(learning.measuredUntil), everyMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(nextLearningAt) - Date.now() + 50)));
    await service.runSchedule('profile-learning');

    const view = await getProfile();
    expect(view).toMatchObject({ phase: 'bootstrap', learning: { lastReason: 'bootstrap-cycle', bootstrapCycles: 2 } });
    expect(anchor(view, 'error-rate')).toMatchObject({ status: 'failing', lastValue: 1, lastSampleSize: 20 });
    expect(anchor(view, 'tool-usage:kb.search')).toMatchObject({ status: 'failing', lastValue: 0 });
    expect(view.profile.errorPatterns).toMatchObject({ rate: 0.25, commonTypes: [{ type: 'RateLimitError', share: 1 }] });
    expect(view.learning.lastComparison.changes).toContain('error rate 0.0% → 25.0%');
    expect(view.profile.insights[0]).toContain('RateLimitError');
  });

  it('PUT edits the editable fields, names invalid ones, and the anchors follow', async () => {
    for (const [body, field] of [
      [{ errorPatterns: { rate: 2 } }, 'errorPatterns.rate'],
      [{ toolPatterns: { distribution: [] } }, 'toolPatterns'],
      [{ insights: ['just one'] }, 'insights'],
      [{}, 'send at least one of'],
    ] as const) {
      const bad = await service.api('PUT', profilePath(), { apiKey, body });
      expect(bad.status, field).toBe(400);
      expect(bad.body.error.message).toContain(field);
    }
    const res = await service.api('PUT', profilePath(), { apiKey, body: { identity: { useCase: 'Triages support tickets' }, errorPatterns: { rate: 0.6 } } });
    expect(res.status).toBe(200);
    expect(res.body.data.profile).toMatchObject({
      identity: { useCase: 'Triages support tickets' },
      errorPatterns: { rate: 0.6 },
      editedAt: expect.any(String),
    });
    expect(anchor(res.body.data, 'error-rate')).toMatchObject({ max: 1, status: 'passing', lastValue: 1 });
  });

  it('reset-training goes back to pre-profile with the profile cleared', async () => {
    const res = await service.api('POST', `${profilePath()}/reset-training`, { apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ phase: 'pre-profile', profile: null, anchors: [], lastLearnedAt: null, nextLearningAt: null });
    expect((await service.api('PUT', profilePath(), { apiKey, body: { insights: ['a', 'b', 'c'] } })).status).toBe(400);
  });

  it("answers 404 for another tenant's agent, exactly as for a missing one", async () => {
    const { token } = await service.signUp('intruder@example.com');
    const missing = await service.api('GET', '/agents/agt_missing/agent-profile', { token });
    expect(missing.status).toBe(404);
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PUT', '', { insights: ['a', 'b', 'c'] }],
      ['POST', '/regenerate', undefined],
      ['POST', '/reset-training', undefined],
    ] as const) {
      const res = await service.api(method, `${profilePath()}${suffix}`, { token, body });
      expect(res.status, `${method} ${suffix}`).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
  });
});
