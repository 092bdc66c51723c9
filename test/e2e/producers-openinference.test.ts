/**
 * OpenInference (`@arizeai/openinference-instrumentation-openai` around the `openai` client on a
 * loopback stub, `traceAgent` / `traceTool` from `@arizeai/openinference-core`), exporting over OTLP
 * to the local service: what a user then sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNamed, errorAlertsOf, exportingProvider, metricsOf, traceOf, treeOf } from '../support/otlp-export.ts';
import { type OpenAiStub, STUB_ANSWER, STUB_MODEL, startOpenAiStub } from '../support/producers/openai-stub.ts';
import { INVENTORY_FAILURE, OPENINFERENCE_AGENT, openInferenceRun } from '../support/producers/openinference.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let stub: OpenAiStub;
let apiKey: string;
beforeAll(async () => {
  [service, stub] = await Promise.all([
    startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } }),
    startOpenAiStub(),
  ]);
  ({ apiKey } = await service.signUp('openinference@example.com'));
});
afterAll(async () => {
  await stub?.close();
  await service?.stop();
});

describe('OpenInference over OTLP', () => {
  it('an agent with OpenAI calls and tools: kinds, agent, model, tokens, cost, messages, tools, session, user and the failing tool alert', async () => {
    const exporter = exportingProvider(service, apiKey, 'trips-service', 'json');
    expect(await openInferenceRun(exporter.provider, stub.baseURL)).toBe(STUB_ANSWER);
    await exporter.deliver();
    const traceId = exporter.traceIds()[0]!;
    const trace = await traceOf(service, apiKey, traceId, 5);

    expect(trace).toMatchObject({
      agentName: OPENINFERENCE_AGENT,
      name: OPENINFERENCE_AGENT,
      status: 'ok',
      errorCount: 1,
      inputTokens: 2400,
      outputTokens: 160,
      // Per call: 200 uncached input tokens at $0.15 per million, 1000 cached at $0.075, 80 output at $0.60.
      cost: 0.000306,
      model: STUB_MODEL,
      sessionId: 'session-oi',
      userId: 'user-oi',
      complete: true,
    });
    expect(treeOf(trace.spans)).toEqual([
      `${OPENINFERENCE_AGENT} (agent)`,
      '  OpenAI Chat Completions (llm)',
      '  get_weather (tool)',
      '  check_inventory (tool)',
      '  OpenAI Chat Completions (llm)',
    ]);
    const [firstCall, secondCall] = trace.named('OpenAI Chat Completions');
    for (const call of [firstCall, secondCall]) {
      expect(call).toMatchObject({
        model: STUB_MODEL,
        provider: 'openai',
        inputTokens: 1200,
        cachedInputTokens: 1000,
        outputTokens: 80,
        reasoningTokens: 16,
        cost: 0.000153,
        costEstimated: true,
      });
    }
    expect(JSON.parse(firstCall!.input!)).toEqual([
      { role: 'system', content: 'You plan trips.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    expect(JSON.parse(firstCall!.output!)).toEqual([
      { role: 'assistant', tool_calls: [{ id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    ]);
    expect(JSON.parse(secondCall!.output!)).toEqual([{ role: 'assistant', content: STUB_ANSWER }]);
    expect(trace.one('get_weather')).toMatchObject({ toolName: 'get_weather', input: 'Paris', output: '{"city":"Paris","forecast":"sunny"}' });
    expect(trace.one(OPENINFERENCE_AGENT)).toMatchObject({ input: 'What is the weather in Paris?', output: STUB_ANSWER });
    for (const span of trace.spans) {
      expect(span).toMatchObject({
        agentName: OPENINFERENCE_AGENT,
        sessionId: 'session-oi',
        userId: 'user-oi',
        tags: ['trips', 'beta'],
        metadata: { plan: 'pro', region: 'eu' },
      });
    }

    const agentId = await agentNamed(service, apiKey, OPENINFERENCE_AGENT);
    const alerts = await errorAlertsOf(service, apiKey, agentId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ occurrenceCount: 1, traceIds: [traceId], message: `tool span "check_inventory" failed: Error: ${INVENTORY_FAILURE}` });
    expect(await metricsOf(service, apiKey, agentId)).toMatchObject({ totalTraces: 1, errorRate: 0, totalTokens: 2560, totalCost: 0.000306 });
  });
});
