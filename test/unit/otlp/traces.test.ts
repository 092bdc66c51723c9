import { describe, expect, it } from 'vitest';
import { decodeTraceRequest } from '#shared/domain/otlp/decode.ts';
import { mapTraceRequest } from '#shared/domain/otlp/traces.ts';
import {
  ARRIVAL,
  type Json,
  keyValues,
  mapOneSpan,
  mapTraceJson,
  RECEIVED_AT_MS,
  SPAN_ID,
  START_MS,
  START_NANOS,
  span,
  TRACE_ID,
  traceRequest,
} from './otlp-json.ts';
import { agentRunSpans, serializeSpans, T0_MS } from './sdk-payloads.ts';

const event = (name: string, attributes: Record<string, unknown>, timeUnixNano: string = START_NANOS) => ({
  name,
  timeUnixNano,
  attributes: keyValues(attributes),
});

describe('a real SDK agent run', () => {
  const payload = serializeSpans(agentRunSpans());
  const fromJson = mapTraceRequest(decodeTraceRequest(payload.json, 'json'), ARRIVAL);
  const fromProtobuf = mapTraceRequest(decodeTraceRequest(payload.protobuf, 'protobuf'), ARRIVAL);
  const byName = (name: string) => fromJson.spans.find((candidate) => candidate.name === name)!;

  it('maps identically from OTLP/JSON and OTLP/protobuf', () => {
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromJson.spans).toHaveLength(3);
    expect(fromJson.rejected).toEqual({ count: 0, messages: [] });
  });

  it('maps the agent span', () => {
    const agent = byName('invoke_agent planner');
    expect(agent).toMatchObject({
      kind: 'agent',
      agentName: 'planner',
      parentSpanId: null,
      operation: 'invoke_agent',
      status: 'ok',
      sessionId: 'conv-42',
      userId: 'user-7',
      startTimeMs: T0_MS,
      endTimeMs: T0_MS + 600,
    });
    expect(agent.attributes).toEqual({
      'resource.service.name': 'travel-service',
      'resource.deployment.environment.name': 'test',
      'otel.scope.name': 'otlp-tests',
      'otel.scope.version': '1.2.3',
    });
  });

  it('maps the LLM span, its usage and content, and turns its evaluation event into a signal', () => {
    const agent = byName('invoke_agent planner');
    const llm = byName('chat gpt-4o');
    expect(llm).toMatchObject({
      kind: 'llm',
      parentSpanId: agent.spanId,
      traceId: agent.traceId,
      // Named only on the invoke_agent span: the child inherits it instead of the service name.
      agentName: 'planner',
      model: 'gpt-4o-2024-08-06',
      provider: 'openai',
      inputTokens: 1200,
      outputTokens: 85,
      cachedInputTokens: 1024,
      cost: null,
      status: 'unset',
      input: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
      output: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Let me check.' }] }]),
      events: [],
    });
    expect(llm.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    for (const moved of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.response.model', 'gen_ai.usage.input_tokens']) {
      expect(llm.attributes).not.toHaveProperty([moved]);
    }
    expect(fromJson.signals).toEqual([
      {
        signalName: 'relevance',
        value: 0.9,
        traceId: llm.traceId,
        spanId: llm.spanId,
        agentName: 'planner',
        metadata: { label: 'relevant', explanation: 'answers the question', 'gen_ai.response.id': 'chatcmpl-1' },
        timestampMs: T0_MS + 500,
      },
    ]);
  });

  it('maps the failing tool span with the exception type and the call arguments', () => {
    const tool = byName('execute_tool get_weather');
    expect(tool).toMatchObject({
      kind: 'tool',
      agentName: 'planner',
      toolName: 'get_weather',
      status: 'error',
      statusMessage: 'weather service unavailable',
      errorType: 'TypeError',
      input: '{"city":"Paris"}',
      output: null,
    });
    expect(tool.attributes['gen_ai.tool.call.id']).toBe('call-1');
    expect(tool.events).toEqual([
      {
        name: 'exception',
        timeMs: T0_MS + 450,
        attributes: expect.objectContaining({ 'exception.type': 'TypeError', 'exception.message': 'weather service unavailable' }),
      },
    ]);
  });
});

describe('agent name', () => {
  it('comes from the span, else the resource gen_ai.agent.name, else the resource service.name', () => {
    const resource = { 'service.name': 'svc', 'gen_ai.agent.name': 'resource-agent' };
    expect(mapOneSpan({ 'gen_ai.agent.name': 'span-agent' }, {}, resource).agentName).toBe('span-agent');
    expect(mapOneSpan({}, {}, resource).agentName).toBe('resource-agent');
    expect(mapOneSpan({}, {}, { 'service.name': 'svc' }).agentName).toBe('svc');
    expect(mapOneSpan({}, {}, {}).agentName).toBeNull();
  });

  it("is not the SDK's unknown_service default", () => {
    expect(mapOneSpan({}, {}, { 'service.name': 'unknown_service:node' }).agentName).toBeNull();
    expect(mapOneSpan({}, {}, { 'service.name': 'unknown_service:node', 'gen_ai.agent.name': 'a' }).agentName).toBe('a');
  });

  it('keeps the resource attributes, prefixed, whichever supplied the name', () => {
    const mapped = mapOneSpan({ 'gen_ai.agent.name': 'span-agent' }, {}, { 'service.name': 'svc', 'host.name': 'h1' });
    expect(mapped.attributes).toEqual({ 'resource.service.name': 'svc', 'resource.host.name': 'h1', 'otel.scope.name': 'tests' });
  });
});

describe('GenAI attributes', () => {
  it('prefers the response model, then the request model', () => {
    expect(mapOneSpan({ 'gen_ai.request.model': 'gpt-4o' }).model).toBe('gpt-4o');
    const both = mapOneSpan({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' });
    expect(both.model).toBe('gpt-4o-2024-08-06');
    expect(both.attributes['gen_ai.request.model']).toBe('gpt-4o');
  });

  it('reads the provider from gen_ai.provider.name, else the older gen_ai.system', () => {
    expect(mapOneSpan({ 'gen_ai.system': 'openai' }).provider).toBe('openai');
    const both = mapOneSpan({ 'gen_ai.provider.name': 'aws.bedrock', 'gen_ai.system': 'anthropic' });
    expect(both.provider).toBe('aws.bedrock');
    expect(both.attributes['gen_ai.system']).toBe('anthropic');
  });

  it('reads tokens under the current and the legacy names, and cached input tokens under both spellings', () => {
    expect(mapOneSpan({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 })).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    const legacy = mapOneSpan({ 'gen_ai.usage.prompt_tokens': 11, 'gen_ai.usage.completion_tokens': 6, 'gen_ai.usage.cache_read_input_tokens': 4 });
    expect(legacy).toMatchObject({ inputTokens: 11, outputTokens: 6, cachedInputTokens: 4 });
    expect(legacy.attributes).not.toHaveProperty(['gen_ai.usage.prompt_tokens']);
    expect(mapOneSpan({ 'gen_ai.usage.cache_read.input_tokens': 3 }).cachedInputTokens).toBe(3);
    expect(mapOneSpan({})).toMatchObject({ inputTokens: null, outputTokens: null, cachedInputTokens: null });
  });

  it('reads int values sent as strings, as OTLP/JSON encoders other than JavaScript send them', () => {
    const mapped = mapOneSpan(
      {},
      {
        attributes: [
          { key: 'gen_ai.usage.input_tokens', value: { intValue: '1500' } },
          { key: 'gen_ai.usage.output_tokens', value: { stringValue: '42' } },
          { key: 'retries', value: { intValue: '3' } },
        ],
      },
    );
    expect(mapped).toMatchObject({ inputTokens: 1500, outputTokens: 42 });
    expect(mapped.attributes.retries).toBe(3);
  });

  it('takes a numeric gen_ai.usage.cost as the cost and leaves anything else to the estimator', () => {
    expect(mapOneSpan({ 'gen_ai.usage.cost': 0.0125 }).cost).toBe(0.0125);
    const unusable = mapOneSpan({ 'gen_ai.usage.cost': 'expensive' });
    expect(unusable.cost).toBeNull();
    expect(unusable.attributes['gen_ai.usage.cost']).toBe('expensive');
    const negative = mapOneSpan({ 'gen_ai.usage.cost': -1 });
    expect(negative.cost).toBeNull();
    expect(negative.attributes['gen_ai.usage.cost']).toBe(-1);
  });

  it('takes as token counts only what a native span may report (whole, 0 to 1e12); the rest stays an attribute', () => {
    const odd = mapOneSpan({ 'gen_ai.usage.input_tokens': -5, 'gen_ai.usage.output_tokens': 2.5, 'gen_ai.usage.cache_read.input_tokens': 1e13 });
    expect(odd).toMatchObject({ inputTokens: null, outputTokens: null, cachedInputTokens: null });
    expect(odd.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': -5, 'gen_ai.usage.output_tokens': 2.5, 'gen_ai.usage.cache_read.input_tokens': 1e13 });
    expect(mapOneSpan({ 'gen_ai.usage.input_tokens': 0, 'gen_ai.usage.output_tokens': 1e12 })).toMatchObject({ inputTokens: 0, outputTokens: 1e12 });
  });

  it('reads tool, operation, session, user and experiment', () => {
    expect(
      mapOneSpan({
        'gen_ai.tool.name': 'search',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.conversation.id': 'conv-1',
        'user.id': 'u-1',
        'experiment.id': 'exp-1',
        'experiment.variant': 'B',
      }),
    ).toMatchObject({
      toolName: 'search',
      operation: 'execute_tool',
      sessionId: 'conv-1',
      userId: 'u-1',
      experimentId: 'exp-1',
      variant: 'B',
      attributes: { 'otel.scope.name': 'tests' },
    });
  });

  it('falls back to session.id and enduser.id', () => {
    expect(mapOneSpan({ 'session.id': 's-1', 'enduser.id': 'e-1' })).toMatchObject({ sessionId: 's-1', userId: 'e-1' });
    const both = mapOneSpan({ 'gen_ai.conversation.id': 'conv-1', 'session.id': 's-1' });
    expect(both.sessionId).toBe('conv-1');
    expect(both.attributes['session.id']).toBe('s-1');
  });

  it('keeps every attribute it does not map, converted to plain JSON', () => {
    const mapped = mapOneSpan({
      'http.status_code': 200,
      ratio: 0.5,
      ok: true,
      tags: ['a', 'b'],
      config: { retries: 2, nested: { mode: 'fast' } },
      blob: new Uint8Array([255, 0]),
    });
    expect(mapped.attributes).toEqual({
      'resource.service.name': 'travel-service',
      'otel.scope.name': 'tests',
      'http.status_code': 200,
      ratio: 0.5,
      ok: true,
      tags: ['a', 'b'],
      config: { retries: 2, nested: { mode: 'fast' } },
      blob: '/wA=',
    });
  });
});

describe('status and errors', () => {
  it.each([
    [0, 'unset'],
    [1, 'ok'],
    [2, 'error'],
  ] as const)('maps status code %i to %s', (code, status) => {
    expect(mapOneSpan({}, { status: { code, message: code === 2 ? 'rate limited' : '' } })).toMatchObject({
      status,
      statusMessage: code === 2 ? 'rate limited' : null,
    });
  });

  it('takes errorType from error.type, else from the first exception event', () => {
    const exceptions = [event('exception', { 'exception.type': 'RateLimitError' }), event('exception', { 'exception.type': 'Second' })];
    expect(mapOneSpan({}, { events: exceptions }).errorType).toBe('RateLimitError');
    const both = mapOneSpan({ 'error.type': '429' }, { events: exceptions });
    expect(both.errorType).toBe('429');
    expect(both.attributes).not.toHaveProperty(['error.type']);
    expect(both.events).toHaveLength(2);
    expect(mapOneSpan({}).errorType).toBeNull();
  });
});

describe('span kind', () => {
  it.each([
    ['chat', 'llm'],
    ['text_completion', 'llm'],
    ['generate_content', 'llm'],
    ['execute_tool', 'tool'],
    ['invoke_agent', 'agent'],
    ['create_agent', 'agent'],
    ['invoke_workflow', 'chain'],
    ['embeddings', 'embedding'],
    ['retrieval', 'retrieval'],
    ['vector_search', 'retrieval'],
    ['summarize', 'other'],
  ])('operation %s → %s', (operation, kind) => {
    expect(mapOneSpan({ 'gen_ai.operation.name': operation }).kind).toBe(kind);
  });

  it('is tool for a span naming a tool, retrieval for a database or vector-store call', () => {
    expect(mapOneSpan({ 'gen_ai.tool.name': 'lookup' }).kind).toBe('tool');
    expect(mapOneSpan({ 'db.system.name': 'qdrant', 'db.operation.name': 'query' }).kind).toBe('retrieval');
  });

  it('is llm for a span without an operation that names a model or counts tokens (older instrumentations)', () => {
    expect(mapOneSpan({ 'gen_ai.request.model': 'claude-3-5-sonnet' }).kind).toBe('llm');
    expect(mapOneSpan({ 'gen_ai.usage.prompt_tokens': 3 }).kind).toBe('llm');
  });

  it('is other when nothing says what the span is', () => {
    expect(mapOneSpan({ 'http.method': 'GET' }).kind).toBe('other');
  });
});

describe('input and output', () => {
  it('keeps message attributes as strings, structured ones as JSON', () => {
    const messages = [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }];
    expect(mapOneSpan({ 'gen_ai.input.messages': JSON.stringify(messages) }).input).toBe(JSON.stringify(messages));
    const structured = mapOneSpan({ 'gen_ai.input.messages': messages, 'gen_ai.output.messages': [{ role: 'assistant', parts: [] }] });
    expect(JSON.parse(structured.input!)).toEqual(messages);
    expect(JSON.parse(structured.output!)).toEqual([{ role: 'assistant', parts: [] }]);
    expect(structured.attributes).not.toHaveProperty(['gen_ai.input.messages']);
  });

  it('reads the legacy gen_ai.prompt and gen_ai.completion', () => {
    expect(mapOneSpan({ 'gen_ai.prompt': 'What is 2+2?', 'gen_ai.completion': '4' })).toMatchObject({ input: 'What is 2+2?', output: '4' });
  });

  it('rebuilds messages flattened into indexed attributes (OpenLLMetry)', () => {
    const mapped = mapOneSpan({
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Hi',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'Be brief',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Hello',
      'gen_ai.prompt.name': 'greeting-template',
    });
    expect(JSON.parse(mapped.input!)).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(JSON.parse(mapped.output!)).toEqual([{ role: 'assistant', content: 'Hello' }]);
    expect(Object.keys(mapped.attributes).filter((key) => key.startsWith('gen_ai.'))).toEqual(['gen_ai.prompt.name']);
  });

  it('reads tool call arguments and result', () => {
    expect(mapOneSpan({ 'gen_ai.tool.call.arguments': { city: 'Paris' }, 'gen_ai.tool.call.result': '{"temp":21}' })).toMatchObject({
      input: '{"city":"Paris"}',
      output: '{"temp":21}',
    });
  });

  it('reads retrieval query and documents', () => {
    const mapped = mapOneSpan({ 'gen_ai.retrieval.query.text': 'capital of France', 'gen_ai.retrieval.documents': [{ id: 'doc_1', score: 0.9 }] });
    expect(mapped).toMatchObject({ input: 'capital of France', output: '[{"id":"doc_1","score":0.9}]' });
  });

  it('reads the message events of the older conventions, which then leave the event list', () => {
    const mapped = mapOneSpan(
      {},
      {
        events: [
          event('gen_ai.system.message', { content: 'Be brief' }),
          event('gen_ai.user.message', { content: 'Hi' }),
          event('gen_ai.choice', { index: 0, finish_reason: 'stop', message: { content: 'Hello' } }),
          event('audit', { who: 'me' }),
        ],
      },
    );
    expect(JSON.parse(mapped.input!)).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(JSON.parse(mapped.output!)).toEqual([{ index: 0, finish_reason: 'stop', message: { content: 'Hello' } }]);
    expect(mapped.events.map((kept) => kept.name)).toEqual(['audit']);
  });

  it('prefers the attributes over message events, keeping the events then', () => {
    const mapped = mapOneSpan({ 'gen_ai.input.messages': '[]' }, { events: [event('gen_ai.user.message', { content: 'Hi' })] });
    expect(mapped.input).toBe('[]');
    expect(mapped.events.map((kept) => kept.name)).toEqual(['gen_ai.user.message']);
  });
});

describe('times', () => {
  it('truncates nanoseconds to milliseconds', () => {
    expect(mapOneSpan({})).toMatchObject({ startTimeMs: START_MS, endTimeMs: START_MS + 1000 });
  });

  it('leaves the end open when it is zero or absent', () => {
    expect(mapOneSpan({}, { endTimeUnixNano: '0' }).endTimeMs).toBeNull();
    expect(mapOneSpan({}, { endTimeUnixNano: undefined }).endTimeMs).toBeNull();
  });

  it('places an event without a time at the moment the request was received', () => {
    expect(mapOneSpan({}, { events: [event('retry', {}, '0')] }).events[0]!.timeMs).toBe(RECEIVED_AT_MS);
  });
});

describe('evaluation events', () => {
  it('become signals named by gen_ai.evaluation.name, else "evaluation"', () => {
    const { signals, spans } = mapTraceJson(
      traceRequest([
        span(
          { 'gen_ai.agent.name': 'judge-me' },
          {
            events: [
              event('gen_ai.evaluation.result', { 'gen_ai.evaluation.name': 'faithfulness', 'gen_ai.evaluation.score.value': 1 }, '1735689700000000000'),
              event('gen_ai.evaluation.result', { 'gen_ai.evaluation.score.value': '0.25', 'gen_ai.evaluation.score.label': 'poor' }),
            ],
          },
        ),
      ]),
    );
    expect(signals).toEqual([
      { signalName: 'faithfulness', value: 1, traceId: TRACE_ID, spanId: SPAN_ID, agentName: 'judge-me', metadata: {}, timestampMs: 1_735_689_700_000 },
      { signalName: 'evaluation', value: 0.25, traceId: TRACE_ID, spanId: SPAN_ID, agentName: 'judge-me', metadata: { label: 'poor' }, timestampMs: START_MS },
    ]);
    expect(spans[0]!.events).toEqual([]);
  });

  it('are told apart by their position in the request when they have no time, being stored under a hash of their content', () => {
    const score = event('gen_ai.evaluation.result', { 'gen_ai.evaluation.score.value': 1 }, '0');
    const { signals } = mapTraceJson(
      traceRequest([span({}, { events: [score, score, event('gen_ai.evaluation.result', { 'gen_ai.evaluation.score.value': 1 })] })]),
    );
    expect(signals.map((s) => [s.timestampMs, s.arrivalKey])).toEqual([
      [RECEIVED_AT_MS, 'request-1#0.0'],
      [RECEIVED_AT_MS, 'request-1#0.1'],
      [START_MS, undefined],
    ]);
  });

  it('produce no signal without a numeric score, and stay span events', () => {
    const { signals, spans } = mapTraceJson(
      traceRequest([span({}, { events: [event('gen_ai.evaluation.result', { 'gen_ai.evaluation.name': 'tone', 'gen_ai.evaluation.score.label': 'rude' })] })]),
    );
    expect(signals).toEqual([]);
    expect(spans[0]!.events.map((kept) => kept.name)).toEqual(['gen_ai.evaluation.result']);
  });
});

describe('per-span rejection', () => {
  const good = (spanId: string) => span({}, { spanId });

  it.each([
    ['a short traceId', { traceId: 'abc123' }, 'traceId must be 16 bytes (32 hex characters), not all zero'],
    ['an all-zero traceId', { traceId: '0'.repeat(32) }, 'traceId must be 16 bytes (32 hex characters), not all zero'],
    ['a non-hex traceId', { traceId: 'z'.repeat(32) }, 'traceId must be 16 bytes (32 hex characters), not all zero'],
    ['a missing spanId', { spanId: undefined }, 'spanId must be 8 bytes (16 hex characters), not all zero'],
    ['an all-zero spanId', { spanId: '0000000000000000' }, 'spanId must be 8 bytes (16 hex characters), not all zero'],
    ['a malformed parentSpanId', { parentSpanId: 'abcd' }, 'parentSpanId must be empty or 8 bytes (16 hex characters)'],
    ['a missing name', { name: '' }, 'name is missing'],
    ['a missing start time', { startTimeUnixNano: undefined }, 'startTimeUnixNano is missing or not positive'],
    ['a zero start time', { startTimeUnixNano: '0' }, 'startTimeUnixNano is missing or not positive'],
    ['an end before the start', { endTimeUnixNano: '1735689600000000000' }, 'endTimeUnixNano is before startTimeUnixNano'],
  ])('refuses a span with %s and keeps the others', (_case, fields, reason) => {
    const { spans, rejected } = mapTraceJson(traceRequest([good('1111111111111111'), span({}, fields), good('2222222222222222')]));
    expect(spans.map((kept) => kept.spanId)).toEqual(['1111111111111111', '2222222222222222']);
    expect(rejected).toEqual({ count: 1, messages: [`span 1: ${reason}`] });
  });

  it('treats an all-zero parentSpanId as a root span', () => {
    expect(mapOneSpan({}, { parentSpanId: '0000000000000000' }).parentSpanId).toBeNull();
  });

  it('numbers spans across resources and scopes, and groups the messages by reason, capped', () => {
    const resourceSpans = (spans: Json[]) => (traceRequest(spans).resourceSpans as Json[])[0]!;
    const request = {
      resourceSpans: [
        resourceSpans([span({}, { name: '' }), good('1111111111111111')]),
        resourceSpans(Array.from({ length: 8 }, () => span({}, { traceId: 'bad' }))),
        ...[{ spanId: 'bad' }, { parentSpanId: 'bad' }, { startTimeUnixNano: '0' }, { endTimeUnixNano: '1' }].map((fields) =>
          resourceSpans([span({}, fields)]),
        ),
      ],
    };
    const { spans, rejected } = mapTraceJson(request);
    expect(spans).toHaveLength(1);
    expect(rejected.count).toBe(13);
    expect(rejected.messages).toEqual([
      'span 0: name is missing',
      'spans 2, 3, 4, 5, 6 and 3 more: traceId must be 16 bytes (32 hex characters), not all zero',
      'span 10: spanId must be 8 bytes (16 hex characters), not all zero',
      'span 11: parentSpanId must be empty or 8 bytes (16 hex characters)',
      'span 12: startTimeUnixNano is missing or not positive',
    ]);
  });
});
