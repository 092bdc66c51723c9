import { type AttributeValue, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AnyValue } from '@opentelemetry/api-logs';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '#shared/domain/binary.ts';
import { ValidationError } from '#shared/domain/errors.ts';
import { decodeLogsRequest, decodeTraceRequest } from '#shared/domain/otlp/decode.ts';
import { type Random, seededRandom } from '../../support/random.ts';
import { at, childOf, recordSpans, serializeLogRecords, serializeSpans } from './sdk-payloads.ts';

const TEXTS = [
  '',
  'plain',
  'ünïcödé',
  '日本語のテキスト',
  'emoji 🤖🧠',
  'quote " and \\ backslash',
  'x'.repeat(300),
  '__proto__',
  'line\nbreak\ttab',
  ' padded\n',
];

function randomScalar(random: Random): string | number | boolean {
  switch (random.below(5)) {
    case 0:
      return random.pick(TEXTS);
    case 1:
      return random.pick([0, 1, -1, 42, -(2 ** 31), 2 ** 31, 2 ** 40, -(2 ** 53) + 1, 2 ** 53 - 1]);
    case 2:
      return random.pick([0.5, -3.25, 1e-300, 123456.789, Math.PI]);
    case 3:
      return random.chance(0.5);
    default:
      return `${random.pick(TEXTS)}-${random.below(1000)}`;
  }
}

function randomAttributes(random: Random): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (let i = random.below(6); i > 0; i--) {
    const key = `${random.pick(TEXTS)}.${i}`;
    if (random.chance(0.2)) {
      const kind = random.below(3);
      attributes[key] = Array.from({ length: random.below(4) }, () =>
        kind === 0 ? random.pick(TEXTS) : kind === 1 ? random.int(-1000, 1000) : random.chance(0.5),
      ) as AttributeValue;
    } else {
      attributes[key] = randomScalar(random);
    }
  }
  return attributes;
}

function randomAnyValue(random: Random, depth = 0): AnyValue {
  const kind = depth > 3 ? 0 : random.below(4);
  if (kind === 1) return Array.from({ length: random.below(4) }, () => randomAnyValue(random, depth + 1));
  if (kind === 2)
    return Object.fromEntries(Array.from({ length: random.below(4) }, (_, i) => [`${random.pick(TEXTS)}${i}`, randomAnyValue(random, depth + 1)]));
  if (kind === 3) return Uint8Array.from({ length: random.below(8) }, () => random.below(256));
  return randomScalar(random);
}

function randomSpans(random: Random) {
  return recordSpans(randomAttributes(random), (tracer) => {
    const root = tracer.startSpan(random.pick(TEXTS), { startTime: at(random.below(1000)), attributes: randomAttributes(random) });
    for (let i = random.below(4); i > 0; i--) {
      const child = tracer.startSpan(random.pick(TEXTS), { startTime: at(random.below(1000)), attributes: randomAttributes(random) }, childOf(root));
      if (random.chance(0.5)) child.addEvent(random.pick(TEXTS), randomAttributes(random), at(random.below(1000)));
      if (random.chance(0.3)) child.setStatus({ code: SpanStatusCode.ERROR, message: random.pick(TEXTS) });
      child.end(at(1000 + random.below(1000)));
    }
    root.setStatus({ code: random.pick([SpanStatusCode.UNSET, SpanStatusCode.OK]) });
    root.end(at(2000 + random.below(1000)));
  });
}

/** Bytes of one message field: tag, then the value as the wire type has it. */
const tag = (writer: ByteWriter, number: number, wireType: number) => writer.uint32((number << 3) | wireType);
const message = (number: number, inner: Uint8Array) => tag(new ByteWriter(), number, 2).bytes(inner).finish();
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);
/** An ExportTraceServiceRequest holding one span made of the given span fields. */
const traceRequestWith = (spanFields: Uint8Array) => Buffer.from(message(1, message(2, message(2, spanFields))));
const spanName = (name: string) => tag(new ByteWriter(), 5, 2).string(name).finish();

describe('OTLP/protobuf decoding (the codec generated from opentelemetry-proto)', () => {
  it('reads 60 random SDK trace exports as their OTLP/JSON twins', () => {
    const random = seededRandom(20261121);
    for (let run = 0; run < 60; run++) {
      const payload = serializeSpans(randomSpans(random));
      expect(decodeTraceRequest(payload.protobuf, 'protobuf'), `run ${run}`).toEqual(decodeTraceRequest(payload.json, 'json'));
    }
  });

  it('reads 60 random SDK log exports, every AnyValue body type included, as their OTLP/JSON twins', () => {
    const random = seededRandom(7);
    for (let run = 0; run < 60; run++) {
      const payload = serializeLogRecords(
        Array.from({ length: 1 + random.below(4) }, () => ({
          severityNumber: random.int(0, 24),
          severityText: random.pick(TEXTS),
          body: randomAnyValue(random),
          attributes: randomAttributes(random),
          ...(random.chance(0.5) && { eventName: random.pick(TEXTS) }),
          ...(random.chance(0.5) && {
            context: trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }),
          }),
        })),
        randomAttributes(random),
      );
      expect(decodeLogsRequest(payload.protobuf, 'protobuf'), `run ${run}`).toEqual(decodeLogsRequest(payload.json, 'json'));
    }
  });

  it('answers any corruption of a valid export with a ValidationError or a decoding, never anything else', () => {
    const random = seededRandom(99);
    const valid = serializeSpans(randomSpans(seededRandom(1))).protobuf;
    for (let run = 0; run < 3000; run++) {
      const bytes = Buffer.from(valid);
      const mutation = random.below(3);
      if (mutation === 0) for (let i = random.int(1, 4); i > 0; i--) bytes[random.below(bytes.length)] = random.below(256);
      const body =
        mutation === 1
          ? bytes.subarray(0, random.below(bytes.length))
          : mutation === 2
            ? Buffer.concat([bytes.subarray(0, random.below(bytes.length)), Buffer.from(Array.from({ length: random.int(1, 12) }, () => random.below(256)))])
            : bytes;
      try {
        decodeTraceRequest(body, 'protobuf');
      } catch (err) {
        expect(err, `run ${run}`).toBeInstanceOf(ValidationError);
      }
    }
  });

  it('skips unknown fields of every wire type, and a known field sent with another wire type', () => {
    const unknown = concat(
      tag(new ByteWriter(), 100, 0).uint32(7).finish(),
      tag(new ByteWriter(), 101, 1).finish(),
      Buffer.alloc(8, 0xff),
      tag(new ByteWriter(), 102, 2).string('ignored').finish(),
      tag(new ByteWriter(), 103, 5).finish(),
      Buffer.alloc(4, 0xff),
      // the name (field 5) as a varint: not a string, so not the name
      tag(new ByteWriter(), 5, 0).uint32(1).finish(),
    );
    const decoded = decodeTraceRequest(traceRequestWith(concat(unknown, spanName('kept'))), 'protobuf');
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name).toBe('kept');
  });

  it('reads negative int64 values, the largest fixed64 time, negative enums and the last of a repeated scalar', () => {
    const negative = new ByteWriter().uint32((3 << 3) | 0).finish();
    // -5 as an int64 varint: ten bytes of two's complement
    const intValue = concat(negative, Buffer.from([0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    const attribute = message(9, concat(tag(new ByteWriter(), 1, 2).string('n').finish(), message(2, intValue)));
    const start = concat(tag(new ByteWriter(), 7, 1).finish(), Buffer.alloc(8, 0xff));
    // status.code = -1 as a ten-byte varint
    const status = message(15, concat(tag(new ByteWriter(), 3, 0).finish(), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])));
    const [span] = decodeTraceRequest(traceRequestWith(concat(spanName('first'), attribute, start, status, spanName('last'))), 'protobuf').resourceSpans[0]!
      .scopeSpans[0]!.spans;
    expect(span).toMatchObject({ name: 'last', attributes: { n: -5 }, startTimeUnixNano: '18446744073709551615', status: { code: -1 } });
  });

  it('refuses field number 0 and a body that ends inside a field', () => {
    const valid = traceRequestWith(spanName('x'));
    for (const body of [traceRequestWith(Buffer.from([0x00, 0x01])), valid.subarray(0, valid.length - 1), Buffer.from([0x0a, 0x05, 0x01])]) {
      expect(() => decodeTraceRequest(Buffer.from(body), 'protobuf')).toThrow(/^Malformed OTLP protobuf body: not a valid ExportTraceServiceRequest/);
    }
  });

  it('refuses messages nested deeper than the stack, as a bad request', () => {
    let value = new ByteWriter().finish();
    // AnyValue.arrayValue (5) → ArrayValue.values (1) → AnyValue …: two messages per level
    for (let level = 0; level < 5000; level++) value = message(5, message(1, value));
    const attribute = message(9, concat(tag(new ByteWriter(), 1, 2).string('deep').finish(), message(2, value)));
    expect(() => decodeTraceRequest(traceRequestWith(attribute), 'protobuf')).toThrow(/^Malformed OTLP protobuf body: not a valid ExportTraceServiceRequest/);
  });
});
