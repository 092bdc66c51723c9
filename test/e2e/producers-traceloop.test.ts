/**
 * OpenLLMetry / Traceloop (`@traceloop/instrumentation-openai` around the `openai` client on a loopback
 * stub, inside a workflow written the way the Traceloop SDK writes it), exporting over OTLP to the local
 * service: what a user then sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNamed, exportingProvider, metricsOf, traceOf, treeOf } from '../support/otlp-export.ts';
import { type OpenAiStub, STUB_ANSWER, STUB_MODEL, startOpenAiStub } from '../support/producers/openai-stub.ts';
import { TRACELOOP_WORKFLOW, traceloopRun, traceloopSpanProcessor } from '../support/producers/traceloop.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let stub: OpenAiStub;
let apiKey: string;
beforeAll(async () => {
  [service, stub] = await Promise.all([
    startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } }),
    startOpenAiStub(),
  ]);
  ({ apiKey } = await service.signUp('traceloop@example.com'));
});
afterAll(async () => {
  await stub?.close();
  await service?.stop();
});

describe('OpenLLMetry / Traceloop over OTLP', () => {
  it('a workflow: the workflow names the agent; kinds, model, tokens, cost, messages, tool, session and user', async () => {
    const exporter = exportingProvider(service, apiKey, 'planner-service', 'protobuf', [traceloopSpanProcessor()]);
    expect(await traceloopRun(exporter.provider, stub.baseURL)).toBe(STUB_ANSWER);
    await exporter.deliver();
    const trace = await traceOf(service, apiKey, exporter.traceIds()[0]!, 5);

    expect(trace).toMatchObject({
      agentName: TRACELOOP_WORKFLOW,
      name: `${TRACELOOP_WORKFLOW}.workflow`,
      status: 'ok',
      errorCount: 0,
      inputTokens: 2400,
      outputTokens: 160,
      // This instrumentation reports no cached tokens: 1200 input tokens at $0.15 per million, 80 output at $0.60, twice.
      cost: 0.000456,
      model: STUB_MODEL,
      sessionId: 'session-tl',
      userId: 'user-tl',
      complete: true,
    });
    expect(treeOf(trace.spans)).toEqual([
      `${TRACELOOP_WORKFLOW}.workflow (chain)`,
      '  plan.task (chain)',
      '    chat gpt-4o-mini (llm)',
      '    get_weather.tool (tool)',
      '    chat gpt-4o-mini (llm)',
    ]);
    const [firstCall, secondCall] = trace.named('chat gpt-4o-mini');
    expect(firstCall).toMatchObject({ model: STUB_MODEL, provider: 'openai', inputTokens: 1200, outputTokens: 80, cost: 0.000228 });
    expect(JSON.parse(firstCall!.input!)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] }]);
    expect(JSON.parse(firstCall!.output!)).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_call',
        parts: [{ type: 'tool_call', id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      },
    ]);
    expect(JSON.parse(secondCall!.output!)).toEqual([{ role: 'assistant', finish_reason: 'stop', parts: [{ type: 'text', content: STUB_ANSWER }] }]);
    expect(trace.one('get_weather.tool')).toMatchObject({ toolName: 'get_weather', input: '{"city":"Paris"}', output: '{"city":"Paris","forecast":"sunny"}' });
    expect(trace.one(`${TRACELOOP_WORKFLOW}.workflow`)).toMatchObject({ input: '{"question":"What is the weather in Paris?"}', output: STUB_ANSWER });
    for (const span of trace.spans)
      expect(span).toMatchObject({ agentName: TRACELOOP_WORKFLOW, sessionId: 'session-tl', userId: 'user-tl', metadata: { plan: 'pro' } });

    const metrics = await metricsOf(service, apiKey, await agentNamed(service, apiKey, TRACELOOP_WORKFLOW));
    expect(metrics).toMatchObject({ totalTraces: 1, errorRate: 0, totalTokens: 2560, totalCost: 0.000456 });
  });
});
