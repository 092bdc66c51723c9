import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { describe, expect, it } from 'vitest';
import { decodeLogsRequest } from '#shared/domain/otlp/decode.ts';
import { mapLogsRequest } from '#shared/domain/otlp/logs.ts';
import { ARRIVAL, anyValue, keyValues, logsRequest, mapLogsJson, RECEIVED_AT_MS, SPAN_ID, START_MS, START_NANOS, TRACE_ID } from './otlp-json.ts';
import { at, serializeLogRecords, T0_MS } from './sdk-payloads.ts';

const mapOneLog = (record: Record<string, unknown>, resource?: Record<string, unknown>) => {
  const { logs, rejected } = mapLogsJson(logsRequest([record], resource));
  if (logs.length !== 1) throw new Error(`expected one log, got ${logs.length}: ${rejected.messages.join('; ')}`);
  return logs[0]!;
};

describe('real SDK log exports', () => {
  const payload = serializeLogRecords(
    [
      {
        severityNumber: SeverityNumber.ERROR,
        severityText: 'ERROR',
        body: 'tool call failed',
        attributes: { 'gen_ai.agent.name': 'planner', 'gen_ai.tool.name': 'get_weather' },
        context: trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 }),
      },
      { severityNumber: SeverityNumber.DEBUG2, body: { step: 'plan', attempt: 2 }, timestamp: at(25) },
      {
        eventName: 'gen_ai.client.inference.operation.details',
        severityNumber: SeverityNumber.INFO,
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        timestamp: at(30),
      },
    ],
    { 'service.name': 'travel-service' },
  );

  it('map identically from OTLP/JSON and OTLP/protobuf', () => {
    const fromJson = mapLogsRequest(decodeLogsRequest(payload.json, 'json'), ARRIVAL);
    expect(mapLogsRequest(decodeLogsRequest(payload.protobuf, 'protobuf'), ARRIVAL)).toEqual(fromJson);
    expect(fromJson).toEqual({
      logs: [
        {
          timestampMs: T0_MS,
          level: 'error',
          message: 'tool call failed',
          eventName: null,
          traceId: TRACE_ID,
          spanId: SPAN_ID,
          agentName: 'planner',
          attributes: { 'resource.service.name': 'travel-service', 'otel.scope.name': 'otlp-tests', 'gen_ai.tool.name': 'get_weather' },
        },
        {
          timestampMs: T0_MS + 25,
          level: 'debug',
          message: '{"step":"plan","attempt":2}',
          eventName: null,
          traceId: null,
          spanId: null,
          agentName: 'travel-service',
          attributes: { 'resource.service.name': 'travel-service', 'otel.scope.name': 'otlp-tests' },
        },
        {
          timestampMs: T0_MS + 30,
          level: 'info',
          // Without a body, the event name is the message too.
          message: 'gen_ai.client.inference.operation.details',
          eventName: 'gen_ai.client.inference.operation.details',
          traceId: null,
          spanId: null,
          agentName: 'travel-service',
          attributes: {
            'resource.service.name': 'travel-service',
            'otel.scope.name': 'otlp-tests',
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
          },
        },
      ],
      rejected: { count: 0, messages: [] },
    });
  });
});

describe('log level', () => {
  it.each([
    [1, 'trace'],
    [4, 'trace'],
    [5, 'debug'],
    [9, 'info'],
    [12, 'info'],
    [13, 'warn'],
    [17, 'error'],
    [20, 'error'],
    [21, 'fatal'],
    [24, 'fatal'],
  ])('severity number %i is %s', (severityNumber, level) => {
    expect(mapOneLog({ severityNumber, severityText: 'ignored when there is a number' }).level).toBe(level);
  });

  it.each([
    ['WARNING', 'warn'],
    ['Error', 'error'],
    ['critical', 'fatal'],
    ['debug', 'debug'],
    ['whatever', 'info'],
    ['', 'info'],
  ])('without a severity number, severity text %j is %s', (severityText, level) => {
    expect(mapOneLog({ severityText }).level).toBe(level);
  });
});

describe('log message, time and agent', () => {
  it('takes the body as text, structured bodies as JSON, else the event name', () => {
    expect(mapOneLog({ body: anyValue('hello') }).message).toBe('hello');
    expect(mapOneLog({ body: anyValue(42) }).message).toBe('42');
    expect(mapOneLog({ body: anyValue(['a', { b: true }]) }).message).toBe('["a",{"b":true}]');
    expect(mapOneLog({ eventName: 'gen_ai.client.inference.operation.details' }).message).toBe('gen_ai.client.inference.operation.details');
    expect(mapOneLog({}).message).toBe('');
  });

  it('uses the time, else the observed time, else the moment the request was received', () => {
    expect(mapOneLog({ timeUnixNano: START_NANOS, observedTimeUnixNano: '1735689700000000000' }).timestampMs).toBe(START_MS);
    expect(mapOneLog({ observedTimeUnixNano: '1735689700000000000' }).timestampMs).toBe(1_735_689_700_000);
    expect(mapOneLog({}).timestampMs).toBe(RECEIVED_AT_MS);
  });

  it('tells records without a time apart by their position in the request, being stored under a hash of their content', () => {
    const { logs } = mapLogsJson(logsRequest([{}, { observedTimeUnixNano: START_NANOS }, {}]));
    expect(logs.map((l) => l.arrivalKey)).toEqual(['request-1#0', undefined, 'request-1#2']);
  });

  it('names the agent as spans do', () => {
    expect(mapOneLog({ attributes: keyValues({ 'gen_ai.agent.name': 'own' }) }, { 'gen_ai.agent.name': 'res', 'service.name': 'svc' }).agentName).toBe('own');
    expect(mapOneLog({}, { 'gen_ai.agent.name': 'res', 'service.name': 'svc' }).agentName).toBe('res');
    expect(mapOneLog({}, { 'service.name': 'svc' }).agentName).toBe('svc');
    expect(mapOneLog({}, { 'service.name': 'unknown_service' }).agentName).toBeNull();
  });
});

describe('log ids', () => {
  it('reads empty and all-zero ids as absent', () => {
    expect(mapOneLog({ traceId: '', spanId: '0000000000000000' })).toMatchObject({ traceId: null, spanId: null });
  });

  it('refuses records with malformed ids and keeps the others', () => {
    const { logs, rejected } = mapLogsJson(
      logsRequest([{ body: anyValue('kept') }, { traceId: 'abc' }, { spanId: 'xyz' }, { traceId: TRACE_ID.toUpperCase(), body: anyValue('kept too') }]),
    );
    expect(logs.map((log) => [log.message, log.traceId])).toEqual([
      ['kept', null],
      ['kept too', TRACE_ID],
    ]);
    expect(rejected).toEqual({
      count: 2,
      messages: ['log record 1: traceId must be empty or 16 bytes (32 hex characters)', 'log record 2: spanId must be empty or 8 bytes (16 hex characters)'],
    });
  });
});
