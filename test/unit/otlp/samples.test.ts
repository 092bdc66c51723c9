import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeLogsRequest, decodeTraceRequest, mapLogsRequest, mapTraceRequest } from '#shared/domain/otlp/index.ts';

const sample = (name: string): Buffer => readFileSync(new URL(`../../../events/otlp/${name}`, import.meta.url));
const ARRIVAL = { atMs: 1_748_779_300_000, requestId: 'request-1' };

describe('events/otlp/agent-trace.json', () => {
  const { spans, signals, rejected } = mapTraceRequest(decodeTraceRequest(sample('agent-trace.json'), 'json'), ARRIVAL);

  it('is one agent run: the agent span, an LLM call and a tool call, all attributed to the agent', () => {
    expect(rejected.count).toBe(0);
    expect(spans.map(({ name, kind, agentName, parentSpanId }) => ({ name, kind, agentName, parentSpanId }))).toEqual([
      { name: 'invoke_agent travel-planner', kind: 'agent', agentName: 'travel-planner', parentSpanId: null },
      { name: 'chat gpt-4o-mini', kind: 'llm', agentName: 'travel-planner', parentSpanId: '00f067aa0ba902b7' },
      { name: 'execute_tool get_weather', kind: 'tool', agentName: 'travel-planner', parentSpanId: '00f067aa0ba902b7' },
    ]);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set(['4bf92f3577b34da6a3ce929d0e0e4736']));
  });

  it('carries usage, content, session and timing', () => {
    const [agent, llm, tool] = spans;
    expect(agent).toMatchObject({ status: 'ok', sessionId: 'conv-8f2a', userId: 'user-1029', startTimeMs: 1_748_779_200_000, endTimeMs: 1_748_779_202_500 });
    expect(llm).toMatchObject({
      model: 'gpt-4o-mini-2024-07-18',
      provider: 'openai',
      inputTokens: 1250,
      outputTokens: 180,
      cachedInputTokens: 1024,
      cost: null,
      sessionId: 'conv-8f2a',
    });
    expect(JSON.parse(llm!.input!)).toHaveLength(2);
    expect(tool).toMatchObject({ toolName: 'get_weather', status: 'ok', input: '{"city":"Paris"}', output: '{"forecast":"sunny","high_c":24}' });
  });

  it('has one evaluation signal on the LLM span', () => {
    expect(signals).toEqual([
      {
        signalName: 'relevance',
        value: 0.92,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '53995c3f42cd8ad8',
        agentName: 'travel-planner',
        metadata: { label: 'relevant', explanation: 'The call fetches exactly what the user asked for.' },
        timestampMs: 1_748_779_201_700,
      },
    ]);
  });
});

describe('events/otlp/logs.json', () => {
  it('is three log records of the same agent run', () => {
    const { logs, rejected } = mapLogsRequest(decodeLogsRequest(sample('logs.json'), 'json'), ARRIVAL);
    expect(rejected.count).toBe(0);
    expect(logs.map(({ timestampMs, level, message, traceId, spanId, agentName }) => ({ timestampMs, level, message, traceId, spanId, agentName }))).toEqual([
      {
        timestampMs: 1_748_779_200_050,
        level: 'info',
        message: 'Planning a trip to Paris',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        agentName: 'travel-planner',
      },
      {
        timestampMs: 1_748_779_202_250,
        level: 'warn',
        message: 'Weather API answered slowly',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: 'b9c7c989f97918e1',
        agentName: 'travel-planner',
      },
      {
        timestampMs: 1_748_779_202_600,
        level: 'error',
        message: '{"event":"itinerary_save_failed","attempt":2}',
        traceId: null,
        spanId: null,
        agentName: 'travel-planner',
      },
    ]);
    expect(logs[1]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'get_weather', 'http.response.latency_ms': 540 });
  });
});
