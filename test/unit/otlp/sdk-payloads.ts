/**
 * Real OTLP payloads: spans and log records made with the OpenTelemetry JS SDK and serialized by the
 * same @opentelemetry/otlp-transformer serializers its OTLP/HTTP exporters use.
 */
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { LogRecord } from '@opentelemetry/api-logs';
import { JsonLogsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface SerializedPayload {
  json: Buffer;
  protobuf: Buffer;
}

/** 2025-01-01T00:00:00.000Z */
export const T0_MS = 1_735_689_600_000;

/** T0 plus an offset, as an HrTime 789 ns past the millisecond so that truncation to ms is exercised. */
export function at(offsetMs: number): [number, number] {
  const ms = T0_MS + offsetMs;
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000 + 789];
}

export function serializeSpans(spans: ReadableSpan[]): SerializedPayload {
  return {
    json: Buffer.from(JsonTraceSerializer.serializeRequest(spans)!),
    protobuf: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
  };
}

export const childOf = (parent: Span): Context => trace.setSpan(ROOT_CONTEXT, parent);

export function recordSpans(resource: Attributes, record: (tracer: Tracer) => void): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  record(provider.getTracer('otlp-tests', '1.2.3'));
  return exporter.getFinishedSpans();
}

/** An agent run: the agent span, an LLM call with an evaluation event, and a failing tool call. */
export function agentRunSpans(): ReadableSpan[] {
  return recordSpans({ 'service.name': 'travel-service', 'deployment.environment.name': 'test' }, (tracer) => {
    const agent = tracer.startSpan('invoke_agent planner', {
      startTime: at(0),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'planner',
        'gen_ai.conversation.id': 'conv-42',
        'user.id': 'user-7',
      },
    });
    const llm = tracer.startSpan(
      'chat gpt-4o',
      {
        startTime: at(10),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.usage.input_tokens': 1200,
          'gen_ai.usage.output_tokens': 85,
          'gen_ai.usage.cache_read.input_tokens': 1024,
          'gen_ai.request.temperature': 0.2,
          'gen_ai.response.finish_reasons': ['stop'],
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Let me check.' }] }]),
        },
      },
      childOf(agent),
    );
    llm.addEvent(
      'gen_ai.evaluation.result',
      {
        'gen_ai.evaluation.name': 'relevance',
        'gen_ai.evaluation.score.value': 0.9,
        'gen_ai.evaluation.score.label': 'relevant',
        'gen_ai.evaluation.explanation': 'answers the question',
        'gen_ai.response.id': 'chatcmpl-1',
      },
      at(500),
    );
    llm.end(at(400));
    const tool = tracer.startSpan(
      'execute_tool get_weather',
      {
        startTime: at(410),
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.id': 'call-1',
          'gen_ai.tool.call.arguments': '{"city":"Paris"}',
        },
      },
      childOf(agent),
    );
    tool.recordException(new TypeError('weather service unavailable'), at(450));
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather service unavailable' });
    tool.end(at(460));
    agent.setStatus({ code: SpanStatusCode.OK });
    agent.end(at(600));
  });
}

export function serializeLogRecords(records: LogRecord[], resource: Attributes = { 'service.name': 'travel-service' }): SerializedPayload {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(resource),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('otlp-tests');
  for (const record of records) logger.emit({ timestamp: at(0), ...record });
  const emitted = exporter.getFinishedLogRecords();
  return {
    json: Buffer.from(JsonLogsSerializer.serializeRequest(emitted)!),
    protobuf: Buffer.from(ProtobufLogsSerializer.serializeRequest(emitted)!),
  };
}
