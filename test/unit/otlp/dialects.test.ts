import { readFileSync } from 'node:fs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTraceRequest } from '#shared/domain/otlp/decode.ts';
import {
  CACHED_INPUT_TOKEN_KEYS,
  COST_KEYS,
  FRAMEWORK_AGENT_SOURCES,
  GENAI_INPUT_KEYS,
  GENAI_OUTPUT_KEYS,
  INPUT_TOKEN_KEYS,
  KIND_SOURCES,
  LANGFUSE_COST,
  LANGFUSE_INPUT_KEYS,
  LANGFUSE_OUTPUT_KEYS,
  LANGFUSE_USAGE,
  METADATA_PREFIXES,
  MODEL_KEYS,
  OPERATION_KEYS,
  OUTPUT_TOKEN_KEYS,
  PROVIDER_KEYS,
  REASONING_TOKEN_KEYS,
  SESSION_KEYS,
  TAG_KEYS,
  TOOL_NAME_KEYS,
  USER_KEYS,
  VERCEL_INPUT_KEYS,
  VERCEL_OBJECT_KEYS,
  VERCEL_TEXT_KEYS,
  VERCEL_TOOL_CALLS_KEYS,
} from '#shared/domain/otlp/span-fields.ts';
import { mapTraceRequest } from '#shared/domain/otlp/traces.ts';
import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import { recordingProvider } from '../../support/producers/context.ts';
import { LANGFUSE_TOOL_FAILURE, LANGFUSE_TRACE_NAME, langfuseRun } from '../../support/producers/langfuse.ts';
import { MCP_AGENT, MCP_TOOL_FAILURE, mcpRun } from '../../support/producers/mcp.ts';
import { type OpenAiStub, STUB_ANSWER, STUB_MODEL, startOpenAiStub } from '../../support/producers/openai-stub.ts';
import { INVENTORY_FAILURE, OPENINFERENCE_AGENT, openInferenceRun } from '../../support/producers/openinference.ts';
import { TRACELOOP_WORKFLOW, traceloopRun, traceloopSpanProcessor } from '../../support/producers/traceloop.ts';
import { VERCEL_AGENT, VERCEL_FAILURE, VERCEL_TOOL_RESULT, vercelFailingRun, vercelStreamRun, vercelToolCallRun } from '../../support/producers/vercel-ai.ts';
import { keyValues, mapOneSpan, mapTraceJson, span, traceRequest } from './otlp-json.ts';
import { serializeSpans } from './sdk-payloads.ts';

const ARRIVAL = { atMs: Date.parse('2026-11-20T10:00:00Z'), requestId: 'request-1' };

/** Maps recorded spans as the OTLP route would, checking both encodings read alike. */
function mapRecorded(spans: ReadableSpan[]): CanonicalSpan[] {
  const { json, protobuf } = serializeSpans(spans);
  const fromJson = mapTraceRequest(decodeTraceRequest(json, 'json'), ARRIVAL);
  expect(mapTraceRequest(decodeTraceRequest(protobuf, 'protobuf'), ARRIVAL)).toEqual(fromJson);
  expect(fromJson.rejected.count).toBe(0);
  return fromJson.spans;
}

const named = (spans: CanonicalSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: CanonicalSpan[], name: string) => {
  const found = named(spans, name);
  if (found.length !== 1) throw new Error(`expected one span named ${name}, got ${found.length}`);
  return found[0]!;
};

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub?.close());

describe('Vercel AI SDK (ai, experimental_telemetry)', () => {
  it('generateText with a tool call: a chain of model calls and the tool, named by the functionId, with usage, content, session, user, tags and metadata', async () => {
    const recorder = recordingProvider('web-app');
    await vercelToolCallRun(recorder.provider.getTracer('ai'));
    const spans = mapRecorded(recorder.spans());
    const root = one(spans, 'ai.generateText');
    const [firstCall, secondCall] = named(spans, 'ai.generateText.doGenerate').sort((a, b) => a.startTimeMs - b.startTimeMs);
    const toolCall = one(spans, 'ai.toolCall');
    for (const s of spans) {
      expect(s).toMatchObject({
        agentName: VERCEL_AGENT,
        agentNameFromService: false,
        sessionId: 'session-vercel',
        userId: 'user-vercel',
        tags: ['weather', 'beta'],
        metadata: { plan: 'pro' },
      });
    }
    expect(root).toMatchObject({
      kind: 'chain',
      parentSpanId: null,
      operation: 'ai.generateText',
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 2200,
      outputTokens: 80,
      cachedInputTokens: 1400,
      reasoningTokens: 10,
      output: 'It is sunny in Paris.',
    });
    expect(JSON.parse(root.input!)).toEqual([
      { role: 'system', content: 'You answer weather questions.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    expect(firstCall).toMatchObject({
      kind: 'llm',
      parentSpanId: root.spanId,
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 1000,
      outputTokens: 50,
      cachedInputTokens: 600,
      reasoningTokens: 10,
    });
    expect(JSON.parse(firstCall!.output!)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'getWeather', input: { city: 'Paris' } }] },
    ]);
    expect(JSON.parse(secondCall!.input!).map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(secondCall).toMatchObject({ inputTokens: 1200, outputTokens: 30, cachedInputTokens: 800, output: 'It is sunny in Paris.' });
    expect(toolCall).toMatchObject({
      kind: 'tool',
      parentSpanId: root.spanId,
      toolName: 'getWeather',
      input: '{"city":"Paris"}',
      output: JSON.stringify(VERCEL_TOOL_RESULT),
    });
    // What was read leaves the attributes; what was not stays.
    expect(toolCall.attributes).toMatchObject({ 'ai.toolCall.id': 'call-1', 'ai.telemetry.functionId': VERCEL_AGENT });
    expect(toolCall.attributes).not.toHaveProperty(['ai.toolCall.name']);
    expect(toolCall.attributes).not.toHaveProperty(['ai.telemetry.metadata.userId']);
  });

  it('streamText: the streamed text is the output, the provider the part before the dot', async () => {
    const recorder = recordingProvider('web-app');
    expect(await vercelStreamRun(recorder.provider.getTracer('ai'))).toBe('Hello, traveller!');
    const spans = mapRecorded(recorder.spans());
    expect(one(spans, 'ai.streamText')).toMatchObject({ kind: 'chain', agentName: 'greeter', output: 'Hello, traveller!', inputTokens: 300, outputTokens: 40 });
    expect(one(spans, 'ai.streamText.doStream')).toMatchObject({
      kind: 'llm',
      model: 'claude-sonnet-4-5-20250929',
      provider: 'anthropic',
      output: 'Hello, traveller!',
      input: JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Greet the traveller.' }] }]),
    });
  });

  it('a failing call: the model call and the outer call both failed, with the error', async () => {
    const recorder = recordingProvider('web-app');
    expect((await vercelFailingRun(recorder.provider.getTracer('ai'))).message).toBe(VERCEL_FAILURE);
    const spans = mapRecorded(recorder.spans());
    for (const name of ['ai.generateText', 'ai.generateText.doGenerate']) {
      expect(one(spans, name)).toMatchObject({ status: 'error', statusMessage: VERCEL_FAILURE, errorType: 'Error', agentName: 'summarizer' });
    }
  });
});

describe('OpenInference (openinference-instrumentation-openai, openinference-core)', () => {
  it('maps kinds, the agent, model calls with cached and reasoning tokens, messages, tools, session, user, tags and metadata', async () => {
    const recorder = recordingProvider('trips-service');
    expect(await openInferenceRun(recorder.provider, stub.baseURL)).toBe(STUB_ANSWER);
    const spans = mapRecorded(recorder.spans());
    const agent = one(spans, OPENINFERENCE_AGENT);
    const calls = named(spans, 'OpenAI Chat Completions').sort((a, b) => a.startTimeMs - b.startTimeMs);
    for (const s of spans) {
      expect(s).toMatchObject({
        agentName: OPENINFERENCE_AGENT,
        sessionId: 'session-oi',
        userId: 'user-oi',
        tags: ['trips', 'beta'],
        metadata: { plan: 'pro', region: 'eu' },
      });
    }
    expect(agent).toMatchObject({ kind: 'agent', parentSpanId: null, input: 'What is the weather in Paris?', output: STUB_ANSWER, status: 'ok' });
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({
        kind: 'llm',
        parentSpanId: agent.spanId,
        model: STUB_MODEL,
        provider: 'openai',
        inputTokens: 1200,
        outputTokens: 80,
        cachedInputTokens: 1000,
        reasoningTokens: 16,
      });
      // The raw request and response bodies repeat the messages.
      expect(call.attributes).not.toHaveProperty(['input.value']);
      expect(call.attributes).not.toHaveProperty(['output.value']);
    }
    expect(JSON.parse(calls[0]!.input!)).toEqual([
      { role: 'system', content: 'You plan trips.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    expect(JSON.parse(calls[0]!.output!)).toEqual([
      { role: 'assistant', tool_calls: [{ id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    ]);
    expect(JSON.parse(calls[1]!.output!)).toEqual([{ role: 'assistant', content: STUB_ANSWER }]);
    expect(one(spans, 'get_weather')).toMatchObject({ kind: 'tool', toolName: 'get_weather', input: 'Paris', output: '{"city":"Paris","forecast":"sunny"}' });
    expect(one(spans, 'check_inventory')).toMatchObject({
      kind: 'tool',
      toolName: 'check_inventory',
      status: 'error',
      statusMessage: INVENTORY_FAILURE,
      errorType: 'Error',
    });
  });
});

describe('OpenLLMetry / Traceloop (instrumentation-openai, SDK workflow attributes)', () => {
  it('names the agent by the workflow, maps workflow and task to chains, the tool, the LLM calls and the association properties', async () => {
    const recorder = recordingProvider('planner-service', [traceloopSpanProcessor()]);
    expect(await traceloopRun(recorder.provider, stub.baseURL)).toBe(STUB_ANSWER);
    const spans = mapRecorded(recorder.spans());
    for (const s of spans) expect(s).toMatchObject({ agentName: TRACELOOP_WORKFLOW, sessionId: 'session-tl', userId: 'user-tl', metadata: { plan: 'pro' } });
    const workflow = one(spans, `${TRACELOOP_WORKFLOW}.workflow`);
    expect(workflow).toMatchObject({ kind: 'chain', parentSpanId: null, input: '{"question":"What is the weather in Paris?"}', output: STUB_ANSWER });
    expect(one(spans, 'plan.task')).toMatchObject({ kind: 'chain', parentSpanId: workflow.spanId });
    expect(one(spans, 'get_weather.tool')).toMatchObject({
      kind: 'tool',
      toolName: 'get_weather',
      input: '{"city":"Paris"}',
      output: '{"city":"Paris","forecast":"sunny"}',
    });
    const calls = named(spans, 'chat gpt-4o-mini');
    expect(calls).toHaveLength(2);
    // This instrumentation reports no cached or reasoning tokens.
    for (const call of calls)
      expect(call).toMatchObject({ kind: 'llm', model: STUB_MODEL, provider: 'openai', operation: 'chat', inputTokens: 1200, outputTokens: 80 });
  });
});

describe('Langfuse (@langfuse/tracing)', () => {
  it('maps observation types, the trace name as the agent, Langfuse usage and cost, level ERROR, session, user, tags and metadata', async () => {
    const recorder = recordingProvider('support-service');
    await langfuseRun(recorder.provider);
    const spans = mapRecorded(recorder.spans());
    const agent = one(spans, 'support-agent');
    for (const s of spans) expect(s.agentName).toBe(LANGFUSE_TRACE_NAME);
    expect(agent).toMatchObject({
      kind: 'agent',
      sessionId: 'session-lf',
      userId: 'user-lf',
      tags: ['refunds'],
      metadata: { tier: 'gold' },
      input: '{"question":"Can I get a refund for order 7?"}',
      output: 'Order 7 could not be found.',
    });
    expect(one(spans, 'draft-answer')).toMatchObject({
      kind: 'llm',
      model: 'gpt-4o',
      // Langfuse's input excludes the cache reads reported beside it.
      inputTokens: 1000,
      cachedInputTokens: 800,
      outputTokens: 60,
      cost: 0.0042,
      output: '{"role":"assistant","content":"Let me look the order up."}',
    });
    expect(one(spans, 'lookup-order')).toMatchObject({ kind: 'tool', toolName: 'lookup-order', status: 'error', statusMessage: LANGFUSE_TOOL_FAILURE });
  });
});

describe('MCP client spans', () => {
  it('maps tools/call to tools (with or without gen_ai.operation.name), resources/read to a retrieval, the rest to other', () => {
    const recorder = recordingProvider('mcp-client');
    mcpRun(recorder.provider.getTracer('mcp'));
    const spans = mapRecorded(recorder.spans());
    for (const s of spans) expect(s.agentName).toBe(MCP_AGENT);
    expect(one(spans, 'initialize')).toMatchObject({ kind: 'other', operation: 'initialize' });
    expect(one(spans, 'tools/list')).toMatchObject({ kind: 'other', operation: 'tools/list' });
    expect(one(spans, 'tools/call get_forecast')).toMatchObject({
      kind: 'tool',
      toolName: 'get_forecast',
      input: '{"city":"Lisbon"}',
      output: '{"forecast":"sunny"}',
    });
    expect(one(spans, 'tools/call book_flight')).toMatchObject({
      kind: 'tool',
      toolName: 'book_flight',
      operation: 'tools/call',
      status: 'error',
      errorType: 'tool_error',
      statusMessage: MCP_TOOL_FAILURE,
    });
    expect(one(spans, 'resources/read')).toMatchObject({ kind: 'retrieval', input: 'file:///itineraries/42.json' });
    expect(one(spans, 'tools/call get_forecast').attributes).toMatchObject({ 'mcp.session.id': 'mcp-session-1', 'jsonrpc.request.id': 3 });
  });

  it('names a tools/call tool by the span name when no attribute does', () => {
    expect(mapOneSpan({ 'mcp.method.name': 'tools/call' }, { name: 'tools/call get-weather' })).toMatchObject({ kind: 'tool', toolName: 'get-weather' });
  });
});

describe('precedence', () => {
  const parentId = '1111111111111111';
  const childId = '2222222222222222';
  const agentOfChild = (parent: Record<string, unknown>, child: Record<string, unknown>, resource: Record<string, unknown> = { 'service.name': 'svc' }) => {
    const { spans } = mapTraceJson(traceRequest([span(parent, { spanId: parentId }), span(child, { spanId: childId, parentSpanId: parentId })], resource));
    return spans.find((s) => s.spanId === childId)!;
  };

  it('agent: gen_ai.agent.name (the span, its ancestor, the resource), then the framework name (the span, its ancestor), then service.name', () => {
    const functionId = { 'ai.telemetry.functionId': 'fn' };
    expect(agentOfChild({ 'gen_ai.agent.name': 'parent' }, { 'gen_ai.agent.name': 'own', ...functionId }).agentName).toBe('own');
    expect(agentOfChild({ 'gen_ai.agent.name': 'parent' }, functionId, { 'service.name': 'svc', 'gen_ai.agent.name': 'resource' }).agentName).toBe('parent');
    expect(agentOfChild({}, functionId, { 'service.name': 'svc', 'gen_ai.agent.name': 'resource' }).agentName).toBe('resource');
    expect(agentOfChild({ 'traceloop.workflow.name': 'flow' }, functionId).agentName).toBe('fn');
    expect(agentOfChild({ 'traceloop.workflow.name': 'flow' }, {})).toMatchObject({ agentName: 'flow', agentNameFromService: false });
    expect(agentOfChild({}, {})).toMatchObject({ agentName: 'svc', agentNameFromService: true });
  });

  it.each([
    [{ 'ai.telemetry.functionId': 'fn' }, {}, 'fn'],
    [{ 'agent.name': 'oi-agent' }, {}, 'oi-agent'],
    [{ 'openinference.span.kind': 'AGENT' }, { name: 'researcher' }, 'researcher'],
    [{ 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'booker', 'traceloop.workflow.name': 'flow' }, {}, 'booker'],
    [{ 'traceloop.workflow.name': 'flow' }, {}, 'flow'],
    [{ 'langfuse.trace.name': 'desk' }, {}, 'desk'],
  ])('agent from the framework: %j → %s', (attributes, fields, agent) => {
    expect(mapOneSpan(attributes, fields)).toMatchObject({ agentName: agent, agentNameFromService: false });
  });

  it("the LangChain runnables Traceloop's LangChain instrumentation names as workflows are not agents", () => {
    const runnable = { 'traceloop.span.kind': 'workflow', 'traceloop.workflow.name': 'RunnableSequence' };
    const fromScope = (scope: string) =>
      mapTraceJson({
        resourceSpans: [
          { resource: { attributes: keyValues({ 'service.name': 'support-svc' }) }, scopeSpans: [{ scope: { name: scope }, spans: [span(runnable)] }] },
        ],
      }).spans[0]!;
    expect(fromScope('@traceloop/instrumentation-langchain')).toMatchObject({ agentName: 'support-svc', agentNameFromService: true, kind: 'chain' });
    // Its model and tool spans carry the application's workflow, as the Traceloop SDK writes it on every span within.
    const llm = mapTraceJson({
      resourceSpans: [
        {
          resource: { attributes: keyValues({ 'service.name': 'support-svc' }) },
          scopeSpans: [
            {
              scope: { name: '@traceloop/instrumentation-langchain' },
              spans: [span({ 'traceloop.workflow.name': 'support-flow', 'gen_ai.operation.name': 'chat' })],
            },
          ],
        },
      ],
    }).spans[0]!;
    expect(llm).toMatchObject({ agentName: 'support-flow', agentNameFromService: false });
    // The Traceloop SDK's own workflows name the application's workflow.
    expect(fromScope('@traceloop/node-server-sdk')).toMatchObject({ agentName: 'RunnableSequence', agentNameFromService: false });
  });

  it('model: the response model before the request model, a Langfuse model before both', () => {
    expect(mapOneSpan({ 'ai.model.id': 'gpt-4o', 'ai.response.model': 'gpt-4o-2024-08-06' }).model).toBe('gpt-4o-2024-08-06');
    expect(mapOneSpan({ 'gen_ai.request.model': 'a', 'llm.model_name': 'b' }).model).toBe('b');
    expect(mapOneSpan({ 'gen_ai.response.model': 'a', 'langfuse.observation.model.name': 'override' }).model).toBe('override');
  });

  it('kind: a Langfuse type over gen_ai.operation.name; a plain Langfuse span says nothing', () => {
    expect(mapOneSpan({ 'langfuse.observation.type': 'retriever', 'gen_ai.operation.name': 'chat' }).kind).toBe('retrieval');
    expect(mapOneSpan({ 'langfuse.observation.type': 'span', 'gen_ai.operation.name': 'chat' }).kind).toBe('llm');
    expect(mapOneSpan({ 'openinference.span.kind': 'RERANKER' }).kind).toBe('retrieval');
    expect(mapOneSpan({ 'openinference.span.kind': 'GUARDRAIL', 'llm.model_name': 'x' }).kind).toBe('other');
  });

  it('tokens and cost: Langfuse usage details and cost details before the other names; an unusable cost stays an attribute', () => {
    const mapped = mapOneSpan({
      [LANGFUSE_USAGE]: JSON.stringify({ input: 100, input_cached_tokens: 50, output: 20, output_reasoning_tokens: 5 }),
      [LANGFUSE_COST]: JSON.stringify({ input: 0.001, output: 0.002 }),
      'gen_ai.usage.input_tokens': 999,
    });
    expect(mapped).toMatchObject({ inputTokens: 150, cachedInputTokens: 50, outputTokens: 25, reasoningTokens: 5, cost: 0.003 });
    expect(mapped.attributes['gen_ai.usage.input_tokens']).toBe(999);
    expect(mapOneSpan({ 'llm.cost.total': 0.25 }).cost).toBe(0.25);
    expect(mapOneSpan({ [LANGFUSE_COST]: 'n/a' }).attributes[LANGFUSE_COST]).toBe('n/a');
  });

  it("input tokens: the cache's reads and writes are added back where the count left them out", () => {
    // Anthropic's own input_tokens leave the cache out; @traceloop/instrumentation-anthropic 0.27 sends them as they are.
    const anthropic = {
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5-20250929',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 45,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.usage.cache_creation.input_tokens': 100,
    };
    const fromScope = (scope: string) =>
      mapTraceJson({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: scope, version: '0.27.0' }, spans: [span(anthropic)] }] }] })
        .spans[0]!;
    const traceloop = fromScope('@traceloop/instrumentation-anthropic');
    expect(traceloop).toMatchObject({ inputTokens: 2300, cachedInputTokens: 1000, outputTokens: 45 });
    // The written tokens stay an attribute as sent: no field holds them apart.
    expect(traceloop.attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(100);
    // Any other instrumentation's count is taken as the conventions define it, the cache included.
    expect(fromScope('opentelemetry.instrumentation.anthropic')).toMatchObject({ inputTokens: 1200, cachedInputTokens: 1000 });
    // A release after the newest checked may count the cache in: taken as sent.
    const later = mapTraceJson({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [{ scope: { name: '@traceloop/instrumentation-anthropic', version: '0.28.0' }, spans: [span(anthropic)] }],
        },
      ],
    }).spans[0]!;
    expect(later).toMatchObject({ inputTokens: 1200, cachedInputTokens: 1000 });
    // Counts sent as text count alike.
    const asText = mapTraceJson({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: '@traceloop/instrumentation-anthropic', version: '0.27.0' },
              spans: [
                span({ 'gen_ai.usage.input_tokens': '1', 'gen_ai.usage.cache_read.input_tokens': '10', 'gen_ai.usage.cache_creation.input_tokens': '7' }),
              ],
            },
          ],
        },
      ],
    }).spans[0]!;
    expect(asText).toMatchObject({ inputTokens: 18, cachedInputTokens: 10 });
    // More read from the cache than the input in all: that count left the cache out, whoever sent it.
    expect(mapOneSpan({ 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.cache_read.input_tokens': 5000 })).toMatchObject({
      inputTokens: 5300,
      cachedInputTokens: 5000,
    });
  });

  it('tokens under the older AI SDK and OpenLLMetry names', () => {
    expect(mapOneSpan({ 'ai.usage.promptTokens': 7, 'ai.usage.completionTokens': 3 })).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    expect(mapOneSpan({ 'llm.usage.prompt_tokens': 8, 'llm.usage.completion_tokens': 4 })).toMatchObject({ inputTokens: 8, outputTokens: 4 });
    expect(mapOneSpan({ 'gen_ai.usage.reasoning.output_tokens': 9, 'gen_ai.usage.reasoning_tokens': 1 }).reasoningTokens).toBe(9);
  });

  it('input: the GenAI system instructions lead the messages', () => {
    const mapped = mapOneSpan({
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
    });
    expect(JSON.parse(mapped.input!)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
    ]);
  });

  it('input and output from the content events of the oldest GenAI conventions, which then leave the event list', () => {
    const contentEvents = [
      { name: 'gen_ai.content.prompt', timeUnixNano: '1735689600123456789', attributes: keyValues({ 'gen_ai.prompt': '[{"role":"user","content":"Hi"}]' }) },
      {
        name: 'gen_ai.content.completion',
        timeUnixNano: '1735689600123456789',
        attributes: keyValues({ 'gen_ai.completion': '[{"role":"assistant","content":"Hello"}]' }),
      },
    ];
    const mapped = mapOneSpan({ 'gen_ai.system': 'openai' }, { events: contentEvents });
    expect(mapped).toMatchObject({ input: '[{"role":"user","content":"Hi"}]', output: '[{"role":"assistant","content":"Hello"}]', events: [] });
  });

  it('content under the AI SDK names before version 4, and a returned string as text', () => {
    expect(mapOneSpan({ 'ai.operationId': 'ai.generateText', 'ai.result.text': 'done' }).output).toBe('done');
    expect(mapOneSpan({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.result': '"plain"' }).output).toBe('plain');
    expect(mapOneSpan({ 'traceloop.entity.output': '"plain"' }).output).toBe('plain');
    expect(mapOneSpan({ 'traceloop.entity.input': '{"args":[1,2],"kwargs":{}}' }).input).toBe('{"args":[1,2],"kwargs":{}}');
  });

  it("the AI SDK's embedded values decoded: one value's JSON text, and each of a list's", () => {
    expect(mapOneSpan({ 'ai.operationId': 'ai.embed', 'ai.value': JSON.stringify('hello embedding') }).input).toBe('hello embedding');
    const many = mapOneSpan({ 'ai.operationId': 'ai.embedMany', 'ai.values': [JSON.stringify('a one'), JSON.stringify({ sku: 'S1' })] });
    expect(JSON.parse(many.input!)).toEqual(['a one', { sku: 'S1' }]);
    expect(many.attributes['ai.values']).toBeUndefined();
    expect(mapOneSpan({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.args': '{"city":"Paris"}' }).input).toBe('{"city":"Paris"}');
    // A list flattened to its JSON text on the way reads alike.
    expect(JSON.parse(mapOneSpan({ 'ai.operationId': 'ai.embedMany', 'ai.values': JSON.stringify(['"a"', '"b"']) }).input!)).toEqual(['a', 'b']);
  });

  it('OpenInference retrieved documents, multi-part content and tool calls, unwrapped', () => {
    const mapped = mapOneSpan({
      'openinference.span.kind': 'RETRIEVER',
      'input.value': 'capital of France',
      'retrieval.documents.0.document.id': 'doc-1',
      'retrieval.documents.0.document.content': 'Paris is the capital.',
      'retrieval.documents.1.document.id': 'doc-2',
      'retrieval.documents.1.document.score': 0.4,
    });
    expect(mapped).toMatchObject({ kind: 'retrieval', input: 'capital of France' });
    expect(JSON.parse(mapped.output!)).toEqual([
      { id: 'doc-1', content: 'Paris is the capital.' },
      { id: 'doc-2', score: 0.4 },
    ]);
    const parts = mapOneSpan({
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.contents.0.message_content.type': 'text',
      'llm.input_messages.0.message.contents.0.message_content.text': 'Describe',
      'llm.input_messages.0.message.contents.1.message_content.type': 'image',
    });
    expect(JSON.parse(parts.input!)).toEqual([{ role: 'user', contents: [{ type: 'text', text: 'Describe' }, { type: 'image' }] }]);
  });

  it('OpenInference messages that hold nothing but their roles leave the value sent beside them as the content', () => {
    // The LangChain instrumentation flattens an AI message whose tool calls LangChain keeps on the message itself to a bare role.
    const value = JSON.stringify({
      generations: [[{ text: '', message: { kwargs: { content: '', tool_calls: [{ name: 'lookup_order', args: { id: 'A7' } }] } } }]],
    });
    const mapped = mapOneSpan({
      'openinference.span.kind': 'LLM',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': '',
      'output.value': value,
      'output.mime_type': 'application/json',
    });
    expect(mapped.output).toBe(value);
    expect(mapped.attributes['output.value']).toBeUndefined();
    // A message that says something is the content, and the raw value repeating it goes.
    const spoken = mapOneSpan({
      'openinference.span.kind': 'LLM',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Your order ships today.',
      'output.value': value,
    });
    expect(JSON.parse(spoken.output!)).toEqual([{ role: 'assistant', content: 'Your order ships today.' }]);
    expect(spoken.attributes['output.value']).toBeUndefined();
    // A function call, or a tool message's call id, is something; an empty value stands in for nothing.
    const called = mapOneSpan({
      'openinference.span.kind': 'LLM',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.function_call_name': 'lookup_order',
      'output.value': value,
    });
    expect(JSON.parse(called.output!)).toEqual([{ role: 'assistant', function_call_name: 'lookup_order' }]);
    const blank = mapOneSpan({ 'openinference.span.kind': 'LLM', 'llm.output_messages.0.message.role': 'assistant', 'output.value': '' });
    expect(JSON.parse(blank.output!)).toEqual([{ role: 'assistant' }]);
  });

  it('session and user: GenAI, then the generic names, then Langfuse, AI SDK metadata and Traceloop association properties', () => {
    expect(mapOneSpan({ 'ai.telemetry.metadata.sessionId': 's', 'ai.telemetry.metadata.userId': 'u' })).toMatchObject({
      sessionId: 's',
      userId: 'u',
      metadata: {},
    });
    expect(mapOneSpan({ 'langfuse.session.id': 's2', 'langfuse.user.id': 'u2' })).toMatchObject({ sessionId: 's2', userId: 'u2' });
    expect(mapOneSpan({ 'session.id': 'generic', 'traceloop.association.properties.session_id': 'tl' })).toMatchObject({
      sessionId: 'generic',
      metadata: { session_id: 'tl' },
    });
  });

  it('tags from every dialect, merged; metadata from every dialect, the span level over the trace level', () => {
    const mapped = mapOneSpan({
      'langfuse.trace.tags': ['a', 'b'],
      'tag.tags': '["b","c"]',
      'ai.telemetry.metadata.tags': ['d'],
      'langfuse.trace.metadata.tier': 'gold',
      'langfuse.trace.metadata.region': 'eu',
      'langfuse.observation.metadata.region': 'us',
      metadata: '{"plan":"pro"}',
    });
    expect(mapped.tags).toEqual(['a', 'b', 'c', 'd']);
    expect(mapped.metadata).toEqual({ tier: 'gold', region: 'us', plan: 'pro' });
    expect(Object.keys(mapped.attributes).filter((key) => key.includes('metadata') || key.includes('tags'))).toEqual([]);
    expect(mapOneSpan({ 'langfuse.trace.tags': 'x, y' }).tags).toEqual(['x', 'y']);
  });

  it('status: Langfuse level ERROR fails the span with its status message; an OTLP error status keeps its own message', () => {
    expect(mapOneSpan({ 'langfuse.observation.level': 'ERROR', 'langfuse.observation.status_message': 'boom' })).toMatchObject({
      status: 'error',
      statusMessage: 'boom',
    });
    expect(mapOneSpan({ 'langfuse.observation.level': 'WARNING' }).status).toBe('unset');
    expect(mapOneSpan({ 'langfuse.observation.level': 'ERROR' }, { status: { code: 2, message: 'otel' } })).toMatchObject({
      status: 'error',
      statusMessage: 'otel',
    });
  });
});

describe('docs/ingestion.md', () => {
  it('names every attribute the mapping reads', () => {
    const doc = readFileSync(new URL('../../../docs/ingestion.md', import.meta.url), 'utf8');
    const sources = [
      ...KIND_SOURCES,
      ...OPERATION_KEYS,
      ...MODEL_KEYS,
      ...PROVIDER_KEYS,
      ...INPUT_TOKEN_KEYS,
      ...OUTPUT_TOKEN_KEYS,
      ...CACHED_INPUT_TOKEN_KEYS,
      ...REASONING_TOKEN_KEYS,
      LANGFUSE_USAGE,
      LANGFUSE_COST,
      ...COST_KEYS,
      ...TOOL_NAME_KEYS,
      ...SESSION_KEYS,
      ...USER_KEYS,
      ...TAG_KEYS,
      ...METADATA_PREFIXES,
      ...LANGFUSE_INPUT_KEYS,
      ...LANGFUSE_OUTPUT_KEYS,
      ...GENAI_INPUT_KEYS,
      ...GENAI_OUTPUT_KEYS,
      ...VERCEL_INPUT_KEYS,
      ...VERCEL_TOOL_CALLS_KEYS,
      ...VERCEL_TEXT_KEYS,
      ...VERCEL_OBJECT_KEYS,
      ...FRAMEWORK_AGENT_SOURCES.map((source) => source.split(':')[0]!.split('=')[0]!),
    ];
    expect(sources.filter((source) => !doc.includes(`\`${source}`))).toEqual([]);
  });
});
