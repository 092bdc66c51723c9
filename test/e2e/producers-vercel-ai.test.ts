/**
 * The Vercel AI SDK (`ai` with its mock language model from `ai/test`), exporting over OTLP to the
 * local service: what a user then sees in the trace, the analytics and the alerts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNamed, errorAlertsOf, exportingProvider, metricsOf, traceOf, treeOf } from '../support/otlp-export.ts';
import { VERCEL_AGENT, VERCEL_FAILURE, VERCEL_TOOL_RESULT, vercelFailingRun, vercelStreamRun, vercelToolCallRun } from '../support/producers/vercel-ai.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } });
  ({ apiKey } = await service.signUp('vercel-ai@example.com'));
});
afterAll(() => service?.stop());

describe('Vercel AI SDK over OTLP', () => {
  it('generateText with a tool call: the agent, a chain of model calls and the tool, tokens, cost, messages, session and user', async () => {
    const exporter = exportingProvider(service, apiKey, 'web-app', 'protobuf');
    expect(await vercelToolCallRun(exporter.provider.getTracer('ai'))).toBe('It is sunny in Paris.');
    await exporter.deliver();
    const [traceId] = exporter.traceIds();
    const trace = await traceOf(service, apiKey, traceId!, 4);

    expect(trace).toMatchObject({
      agentName: VERCEL_AGENT,
      name: 'ai.generateText',
      status: 'ok',
      errorCount: 0,
      // The outer call repeats the sum of its two model calls: counted once.
      inputTokens: 2200,
      outputTokens: 80,
      totalTokens: 2280,
      // gpt-4o-mini list prices: $0.15 per million input tokens, $0.075 cached, $0.60 output.
      cost: 0.000273,
      model: 'gpt-4o-mini',
      models: ['gpt-4o-mini'],
      sessionId: 'session-vercel',
      userId: 'user-vercel',
      complete: true,
    });
    expect(treeOf(trace.spans)).toEqual([
      'ai.generateText (chain)',
      '  ai.generateText.doGenerate (llm)',
      '  ai.toolCall (tool)',
      '  ai.generateText.doGenerate (llm)',
    ]);
    const [firstCall, secondCall] = trace.named('ai.generateText.doGenerate');
    expect(firstCall).toMatchObject({
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 1000,
      cachedInputTokens: 600,
      outputTokens: 50,
      reasoningTokens: 10,
      cost: 0.000135,
      costEstimated: true,
    });
    expect(JSON.parse(firstCall!.input!)).toEqual([
      { role: 'system', content: 'You answer weather questions.' },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
    ]);
    expect(JSON.parse(firstCall!.output!)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'getWeather', input: { city: 'Paris' } }] },
    ]);
    expect(secondCall).toMatchObject({ inputTokens: 1200, cachedInputTokens: 800, outputTokens: 30, cost: 0.000138, output: 'It is sunny in Paris.' });
    expect(trace.one('ai.toolCall')).toMatchObject({
      toolName: 'getWeather',
      input: '{"city":"Paris"}',
      output: JSON.stringify(VERCEL_TOOL_RESULT),
      status: 'unset',
    });
    for (const span of trace.spans) {
      expect(span).toMatchObject({
        agentName: VERCEL_AGENT,
        sessionId: 'session-vercel',
        userId: 'user-vercel',
        tags: ['weather', 'beta'],
        metadata: { plan: 'pro' },
      });
    }

    // The agent is the functionId, not the service name.
    const agents = (await service.api('GET', '/agents', { apiKey })).body.data.map((a: { name: string }) => a.name);
    expect(agents).toContain(VERCEL_AGENT);
    expect(agents).not.toContain('web-app');
    const filters = (await service.api('GET', '/spans/filters', { apiKey })).body.data;
    expect(filters.toolNames).toContain('getWeather');
    expect(filters.spanKinds).toEqual(expect.arrayContaining(['chain', 'llm', 'tool']));

    const metrics = await metricsOf(service, apiKey, await agentNamed(service, apiKey, VERCEL_AGENT));
    expect(metrics).toMatchObject({
      totalTraces: 1,
      successRate: 1,
      errorRate: 0,
      inputTokens: 2200,
      outputTokens: 80,
      totalTokens: 2280,
      totalCost: 0.000273,
    });
  });

  it('streamText: the streamed text, the answering model and its cost', async () => {
    const exporter = exportingProvider(service, apiKey, 'web-app', 'json');
    await vercelStreamRun(exporter.provider.getTracer('ai'));
    await exporter.deliver();
    const trace = await traceOf(service, apiKey, exporter.traceIds()[0]!, 2);
    // claude-sonnet-4-5 list prices: $3 per million input tokens, $15 output.
    expect(trace).toMatchObject({ agentName: 'greeter', status: 'ok', inputTokens: 300, outputTokens: 40, cost: 0.0015, model: 'claude-sonnet-4-5-20250929' });
    expect(treeOf(trace.spans)).toEqual(['ai.streamText (chain)', '  ai.streamText.doStream (llm)']);
    expect(trace.one('ai.streamText')).toMatchObject({
      input: JSON.stringify([{ role: 'user', content: 'Greet the traveller.' }]),
      output: 'Hello, traveller!',
    });
    expect(trace.one('ai.streamText.doStream')).toMatchObject({ provider: 'anthropic', output: 'Hello, traveller!', cost: 0.0015 });
  });

  it('a failing call: the trace failed, and one alert occurrence names the model call where it started', async () => {
    const exporter = exportingProvider(service, apiKey, 'web-app', 'protobuf');
    await vercelFailingRun(exporter.provider.getTracer('ai'));
    await exporter.deliver();
    const traceId = exporter.traceIds()[0]!;
    const trace = await traceOf(service, apiKey, traceId, 2);
    expect(trace).toMatchObject({ agentName: 'summarizer', status: 'error', errorCount: 2 });
    for (const span of trace.spans) expect(span).toMatchObject({ status: 'error', statusMessage: VERCEL_FAILURE });

    const agentId = await agentNamed(service, apiKey, 'summarizer');
    const alerts = await errorAlertsOf(service, apiKey, agentId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      agentName: 'summarizer',
      occurrenceCount: 1,
      traceIds: [traceId],
      message: `llm span "ai.generateText.doGenerate" failed: Error: ${VERCEL_FAILURE}`,
    });
    expect(await metricsOf(service, apiKey, agentId)).toMatchObject({ totalTraces: 1, errorRate: 1 });
  });
});
