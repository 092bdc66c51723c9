import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/domain/errors.ts';
import { decodeLogsRequest, decodeTraceRequest, type OtlpFormat, TOO_DEEP_MARKER } from '#shared/domain/otlp/decode.ts';
import { REQUESTS } from '#shared/domain/otlp/protobuf.ts';
import { jsonBody, keyValues, span, traceRequest } from './otlp-json.ts';
import { agentRunSpans, at, recordSpans, serializeLogRecords, serializeSpans } from './sdk-payloads.ts';

const decodeError = (decode: () => unknown): ValidationError => {
  try {
    decode();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
};

describe('decoding real SDK trace exports', () => {
  const spans = agentRunSpans();
  const payload = serializeSpans(spans);
  const fromJson = decodeTraceRequest(payload.json, 'json');
  const fromProtobuf = decodeTraceRequest(payload.protobuf, 'protobuf');

  it('reads the JSON and the protobuf encoding of the same spans identically', () => {
    expect(fromProtobuf).toEqual(fromJson);
  });

  it('reads ids as lower-case hex, times as nanosecond strings and every field the wire reader declares', () => {
    const [resourceSpans] = fromProtobuf.resourceSpans;
    expect(resourceSpans!.resource.attributes).toMatchObject({ 'service.name': 'travel-service', 'deployment.environment.name': 'test' });
    expect(resourceSpans!.scopeSpans[0]!.scope).toEqual({ name: 'otlp-tests', version: '1.2.3' });
    const decoded = resourceSpans!.scopeSpans[0]!.spans;
    expect(decoded).toHaveLength(3);
    for (const sdkSpan of spans) {
      const match = decoded.find((candidate) => candidate.spanId === sdkSpan.spanContext().spanId)!;
      expect(match.traceId).toBe(sdkSpan.spanContext().traceId);
      expect(match.parentSpanId).toBe(sdkSpan.parentSpanContext?.spanId ?? '');
      expect(match.name).toBe(sdkSpan.name);
      expect(match.startTimeUnixNano).toBe(`${sdkSpan.startTime[0]}${String(sdkSpan.startTime[1]).padStart(9, '0')}`);
      expect(match.endTimeUnixNano).toBe(`${sdkSpan.endTime[0]}${String(sdkSpan.endTime[1]).padStart(9, '0')}`);
      expect(match.attributes).toEqual(sdkSpan.attributes);
      expect(match.status).toEqual({ code: sdkSpan.status.code, message: sdkSpan.status.message ?? '' });
      expect(match.events.map((event) => event.name)).toEqual(sdkSpan.events.map((event) => event.name));
    }
    const llm = decoded.find((candidate) => candidate.name === 'chat gpt-4o')!;
    expect(llm.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 1200, 'gen_ai.request.temperature': 0.2, 'gen_ai.response.finish_reasons': ['stop'] });
    expect(llm.events[0]).toEqual({
      name: 'gen_ai.evaluation.result',
      timeUnixNano: '1735689600500000789',
      attributes: expect.objectContaining({ 'gen_ai.evaluation.score.value': 0.9 }),
    });
  });

  it('skips the fields it does not model (links, flags, trace state, dropped counts)', () => {
    const linked = recordSpans({}, (tracer) => {
      const target = tracer.startSpan('target', { startTime: at(0) });
      target.end(at(1));
      tracer.startSpan('linked', { startTime: at(2), links: [{ context: target.spanContext(), attributes: { why: 'retry' } }] }).end(at(3));
    });
    const payload = serializeSpans(linked);
    expect(decodeTraceRequest(payload.protobuf, 'protobuf')).toEqual(decodeTraceRequest(payload.json, 'json'));
  });
});

describe('decoding real SDK log exports', () => {
  const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
  const payload = serializeLogRecords([
    {
      severityNumber: SeverityNumber.WARN,
      severityText: 'WARN',
      body: { step: 'plan', tokens: 12, ratio: 0.5, tags: ['a', 'b'], raw: new Uint8Array([1, 2, 3]), nested: { ok: true } },
      attributes: { 'gen_ai.agent.name': 'planner' },
      eventName: 'agent.step',
      observedTimestamp: at(5),
      context: trace.setSpanContext(ROOT_CONTEXT, spanContext),
    },
    { body: 'plain text' },
  ]);

  it('reads the JSON and the protobuf encoding of the same records identically, bodies of every AnyValue type included', () => {
    const fromJson = decodeLogsRequest(payload.json, 'json');
    expect(decodeLogsRequest(payload.protobuf, 'protobuf')).toEqual(fromJson);
    const [structured, plain] = fromJson.resourceLogs[0]!.scopeLogs[0]!.logRecords;
    expect(structured).toEqual({
      timeUnixNano: '1735689600000000789',
      observedTimeUnixNano: '1735689600005000789',
      severityNumber: 13,
      severityText: 'WARN',
      body: { step: 'plan', tokens: 12, ratio: 0.5, tags: ['a', 'b'], raw: 'AQID', nested: { ok: true } },
      eventName: 'agent.step',
      attributes: { 'gen_ai.agent.name': 'planner' },
      traceId: spanContext.traceId,
      spanId: spanContext.spanId,
    });
    expect(plain).toMatchObject({ body: 'plain text', severityNumber: 0, traceId: '', spanId: '' });
  });
});

describe('decoding OTLP/JSON as other encoders write it', () => {
  const decodeSpan = (fields: Record<string, unknown>) =>
    decodeTraceRequest(jsonBody(traceRequest([span({}, fields)])), 'json').resourceSpans[0]!.scopeSpans[0]!.spans[0]!;

  it('accepts upper-case hex ids', () => {
    expect(decodeSpan({ traceId: '5B8EFFF798038103D269B633813FC60C', spanId: 'EEE19B7EC3C1B174' })).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
    });
  });

  it('accepts int64 values as numbers or decimal strings', () => {
    const decoded = decodeSpan({
      startTimeUnixNano: 1735689600123456800,
      endTimeUnixNano: '1735689601000000000',
      attributes: [
        { key: 'as_string', value: { intValue: '120' } },
        { key: 'as_number', value: { intValue: 120 } },
        { key: 'negative', value: { intValue: '-7' } },
      ],
    });
    expect(decoded.startTimeUnixNano).toBe('1735689600123456768');
    expect(decoded.endTimeUnixNano).toBe('1735689601000000000');
    expect(decoded.attributes).toEqual({ as_string: 120, as_number: 120, negative: -7 });
  });

  it('accepts enum names as well as numbers, and null for any field', () => {
    expect(decodeSpan({ status: { code: 'STATUS_CODE_ERROR', message: 'boom' } }).status).toEqual({ code: 2, message: 'boom' });
    expect(decodeSpan({ status: { code: 2 } }).status).toEqual({ code: 2, message: '' });
    expect(decodeSpan({ parentSpanId: null, attributes: null, events: null, status: null })).toMatchObject({
      parentSpanId: '',
      attributes: {},
      events: [],
      status: { code: 0, message: '' },
    });
  });

  it('converts AnyValues to plain JSON: kvlist → object, array → array, bytes → base64, empty → null', () => {
    const decoded = decodeSpan({
      attributes: [
        ...keyValues({ text: 'hi', flag: false, ratio: 0.25, list: [1, 'two'], map: { inner: { deeper: [true] } } }),
        { key: 'bytes', value: { bytesValue: 'AQID' } },
        { key: 'empty', value: {} },
        { key: 'not_a_number', value: { doubleValue: 'NaN' } },
        { key: 'double_as_string', value: { doubleValue: '1.5' } },
        { key: '__proto__', value: { stringValue: 'an ordinary key' } },
      ],
    });
    expect(decoded.attributes).toEqual({
      text: 'hi',
      flag: false,
      ratio: 0.25,
      list: [1, 'two'],
      map: { inner: { deeper: [true] } },
      bytes: 'AQID',
      empty: null,
      not_a_number: 'NaN',
      double_as_string: 1.5,
      ['__proto__']: 'an ordinary key',
    });
    expect(Object.getPrototypeOf(decoded.attributes)).toBe(Object.prototype);
  });

  it('reads an empty request as no spans', () => {
    expect(decodeTraceRequest(Buffer.from('{}'), 'json')).toEqual({ resourceSpans: [] });
    expect(decodeTraceRequest(Buffer.alloc(0), 'protobuf')).toEqual({ resourceSpans: [] });
    expect(decodeLogsRequest(Buffer.from('{"resourceLogs":[]}'), 'json')).toEqual({ resourceLogs: [] });
  });
});

describe('undecodable requests', () => {
  const traceJson = (request: unknown) => () => decodeTraceRequest(jsonBody(request), 'json');

  it.each([
    ['malformed JSON', () => decodeTraceRequest(Buffer.from('{"resourceSpans": ['), 'json'), /^Malformed OTLP JSON body/],
    ['a JSON array', traceJson([]), /request body must be an object/],
    ['a JSON null', traceJson(null), /request body must be an object/],
    ['resourceSpans not an array', traceJson({ resourceSpans: {} }), /^resourceSpans must be an array$/],
    ['a span that is not an object', traceJson(traceRequest(['span'] as never)), /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\] must be an object$/],
    ['a numeric name', traceJson(traceRequest([span({}, { name: 42 })])), /spans\[0\]\.name must be a string$/],
    ['a non-integer time', traceJson(traceRequest([span({}, { startTimeUnixNano: 'soon' })])), /spans\[0\]\.startTimeUnixNano must be an integer/],
    [
      'a time as a number beyond 64 bits',
      traceJson(traceRequest([span({}, { startTimeUnixNano: 1e300 })])),
      /spans\[0\]\.startTimeUnixNano must be an integer \(a number or a decimal string\) in the 64-bit range/,
    ],
    [
      'a time as a string beyond 64 bits',
      traceJson(traceRequest([span({}, { endTimeUnixNano: '99999999999999999999' })])),
      /spans\[0\]\.endTimeUnixNano must be an integer .* in the 64-bit range/,
    ],
    [
      'a fractional intValue',
      traceJson(traceRequest([span({}, { attributes: [{ key: 'n', value: { intValue: 1.5 } }] })])),
      /attributes\[0\]\.value\.intValue must be an integer/,
    ],
    ['a numeric traceId', traceJson(traceRequest([span({}, { traceId: 12345 })])), /spans\[0\]\.traceId must be a hex string$/],
    ['an unknown enum name', traceJson(traceRequest([span({}, { status: { code: 'BROKEN' } })])), /status\.code must be a StatusCode number$/],
    ['a string boolValue', traceJson(traceRequest([span({}, { attributes: [{ key: 'b', value: { boolValue: 'yes' } }] })])), /boolValue must be a boolean$/],
    ['malformed logs JSON', () => decodeLogsRequest(Buffer.from('not json'), 'json'), /^Malformed OTLP JSON body/],
    [
      'a log body of the wrong type',
      () => decodeLogsRequest(jsonBody({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: 'text' }] }] }] }), 'json'),
      /logRecords\[0\]\.body must be an object$/,
    ],
  ])('refuses %s with a ValidationError naming the problem', (_case, decode, message) => {
    expect(decodeError(decode).message).toMatch(message);
  });

  it('refuses truncated or garbage protobuf', () => {
    const { protobuf } = serializeSpans(agentRunSpans());
    const truncated = decodeError(() => decodeTraceRequest(protobuf.subarray(0, protobuf.length - 7), 'protobuf'));
    expect(truncated.message).toMatch(/^Malformed OTLP protobuf body: not a valid ExportTraceServiceRequest/);
    const garbage = decodeError(() => decodeLogsRequest(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), 'protobuf'));
    expect(garbage.message).toMatch(/^Malformed OTLP protobuf body: not a valid ExportLogsServiceRequest/);
  });

  it('reads AnyValues 32 levels deep at most, marking what is deeper and keeping the rest of the export', () => {
    let value: Record<string, unknown> = { stringValue: 'bottom' };
    for (let depth = 0; depth < 40; depth++) value = { arrayValue: { values: [value] } };
    const request = traceRequest([
      span(
        {},
        {
          attributes: [
            { key: 'deep', value },
            { key: 'shallow', value: { stringValue: 'kept' } },
          ],
        },
      ),
    ]);
    const [decoded] = traceJson(request)().resourceSpans[0]!.scopeSpans[0]!.spans;
    let deep = decoded!.attributes['deep'];
    let levels = 0;
    for (; Array.isArray(deep); levels++) deep = deep[0];
    expect([levels, deep]).toEqual([33, TOO_DEEP_MARKER]);
    expect(decoded!.attributes['shallow']).toBe('kept');
  });

  it('reads protobuf AnyValues as deep as JSON ones: key-value lists 40 deep keep the export, what is past 32 marked', () => {
    let value: Record<string, unknown> = { stringValue: 'bottom' };
    for (let depth = 0; depth < 40; depth++) value = { kvlistValue: { values: [{ key: 'k', value }] } };
    const Request = REQUESTS.ExportTraceServiceRequest;
    const request = { resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'deep', attributes: [{ key: 'deep', value }] }] }] }] };
    // The encoder has its own limit (the service only decodes), raised for this body alone.
    const encoderLimit = protobuf.util.recursionLimit;
    protobuf.util.recursionLimit = 1000;
    let bytes: Buffer;
    try {
      bytes = Buffer.from(Request.encode(request as Parameters<typeof Request.encode>[0]).finish());
    } finally {
      protobuf.util.recursionLimit = encoderLimit;
    }
    const [decoded] = decodeTraceRequest(bytes, 'protobuf').resourceSpans[0]!.scopeSpans[0]!.spans;
    let deep: unknown = decoded!.attributes['deep'];
    let levels = 0;
    for (; typeof deep === 'object' && deep !== null; levels++) deep = (deep as Record<string, unknown>)['k'];
    expect([levels, deep]).toEqual([33, TOO_DEEP_MARKER]);
  });

  it('keeps messages short and free of stack traces, whatever the size of the body', () => {
    const huge = Buffer.from(`{"resourceSpans": "${'x'.repeat(5_000_000)}`);
    const bodies: [Buffer, OtlpFormat][] = [
      [huge, 'json'],
      // A first field claiming 256 MB, far beyond the body.
      [Buffer.concat([Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x01]), huge]), 'protobuf'],
    ];
    for (const [body, format] of bodies) {
      const { message } = decodeError(() => decodeTraceRequest(body, format));
      expect(message.length).toBeLessThan(220);
      expect(message).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a JSON time of more than 20 digits', () => {
    const request = traceRequest([span({}, { startTimeUnixNano: '1'.repeat(30) })]);
    expect(decodeError(traceJson(request)).message).toMatch(/startTimeUnixNano must be an integer/);
  });
});
