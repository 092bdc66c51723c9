import { describe, expect, it, onTestFinished } from 'vitest';
import { newArrival } from '#shared/domain/ingest/arrival.ts';
import { ingestMessageSchema } from '#shared/domain/ingest/message-schema.ts';
import { fitSpan, MAX_CLOSE_TRACES, MAX_MESSAGE_BYTES, toIngestMessages, truncateText } from '#shared/domain/ingest/messages.ts';
import { parseSignals } from '#shared/domain/ingest/native-signals.ts';
import { parseSpans } from '#shared/domain/ingest/native-spans.ts';
import { type CanonicalSpan, isStorableNumber } from '#shared/domain/spans/model.ts';
import { canonicalSpan } from '../../support/spans.ts';

const span = (i: number, over: Partial<CanonicalSpan> = {}): CanonicalSpan =>
  canonicalSpan({ traceId: 't', spanId: `s${i}`, name: 'n', agentName: null, startTimeMs: 0, endTimeMs: null, status: 'unset', ...over });

describe('fitting telemetry into queue messages', () => {
  it('cuts long text and says how much was cut', () => {
    expect(truncateText('abcdef', 4)).toBe('abcd…[truncated 2 characters]');
    expect(truncateText('abc', 4)).toBe('abc');
    expect(truncateText(null)).toBeNull();
  });

  it('keeps every span, splitting messages so each fits in SQS', () => {
    const spans = Array.from({ length: 40 }, (_, i) => span(i, { input: 'x'.repeat(30_000), output: 'y'.repeat(30_000) }));
    const messages = toIngestMessages('tnt', 1, { spans, signals: [], logs: [] });
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const kept = messages.flatMap((m) => (m.kind === 'telemetry' ? m.spans.map((s) => s.spanId) : []));
    expect(kept).toEqual(spans.map((s) => s.spanId));
  });

  it('keeps the attributes that fit in 32 KB, in the order sent, and a note naming those left out', () => {
    const attributes = { small: 'ok', ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(1000)])) };
    const fitted = fitSpan(span(0, { attributes })).attributes;
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(32 * 1024);
    const keptKeys = Object.keys(fitted).filter((key) => key !== 'aos.truncated');
    expect(keptKeys.length).toBeGreaterThan(25);
    expect(keptKeys).toEqual(['small', ...Array.from({ length: keptKeys.length - 1 }, (_, i) => `k${i}`)]);
    const leftOut = 51 - keptKeys.length;
    expect(fitted['aos.truncated']).toBe(
      `${leftOut} attributes left out to keep the rest within 32 KB: ${Array.from({ length: leftOut }, (_, i) => `k${i + keptKeys.length - 1}`).join(', ')}`,
    );
  });

  it('leaves out an attribute too large for 32 KB and keeps the small ones sent after it', () => {
    const attributes = { big: Array.from({ length: 20 }, () => 'v'.repeat(4000)), model: 'gpt-4o', region: 'eu' };
    expect(fitSpan(span(0, { attributes })).attributes).toEqual({
      model: 'gpt-4o',
      region: 'eu',
      'aos.truncated': '1 attributes left out to keep the rest within 32 KB: big',
    });
  });

  it('turns numbers DynamoDB cannot hold into text in attributes, and drops them from numeric fields', () => {
    const fitted = fitSpan(span(0, { inputTokens: 2 ** 60, cost: 5e-324, attributes: { tiny: 5e-324, huge: 1e308, fine: 0.25, nested: { n: -(2 ** 53) } } }));
    expect(fitted).toMatchObject({ inputTokens: null, cost: null });
    expect(fitted.attributes).toEqual({ tiny: '5e-324', huge: '1e+308', fine: 0.25, nested: { n: '-9007199254740992' } });
    expect([0, 1e-130, 2 ** 53 - 1, -3.5].every(isStorableNumber)).toBe(true);
    expect([5e-324, 2 ** 53, Infinity, NaN].some(isStorableNumber)).toBe(false);
  });

  it('keeps a __proto__ key under another name, at any depth, so the marshaller cannot turn it into a prototype', () => {
    const attributes = JSON.parse('{"__proto__": 1, "message": {"__proto__": {"a": 1}, "v": 2}}');
    const fitted = fitSpan(span(0, { attributes })).attributes;
    expect(fitted).toEqual({ '[__proto__]': 1, message: { '[__proto__]': { a: 1 }, v: 2 } });
    expect(Object.getPrototypeOf(fitted['message'])).toBe(Object.prototype);
  });
});

describe('fitting what an OTLP exporter may send at any size', () => {
  const megabyte = 'k'.repeat(1024 * 1024);
  const fitsOneMessage = (spans: CanonicalSpan[]) => {
    const messages = toIngestMessages('tnt', 1, { spans, signals: [], logs: [] });
    for (const m of messages) expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    return messages;
  };

  it('names no session, user or experiment for empty or blank text, which no one could open', () => {
    const fitted = fitSpan(span(0, { sessionId: '   ', userId: '', experimentId: '\t', variant: ' a ' }));
    expect(fitted).toMatchObject({ sessionId: null, userId: null, experimentId: null, variant: ' a ' });
  });

  it('cuts a 1 MB attribute key, at any depth, and a 1 MB name, and keeps the span', () => {
    const fitted = fitSpan(
      span(0, { name: megabyte, agentName: megabyte, model: megabyte, attributes: { [`resource.${megabyte}`]: 'v', nested: { [megabyte]: 1 } } }),
    );
    expect(Object.keys(fitted.attributes).every((k) => k.length < 300)).toBe(true);
    expect(Object.keys(fitted.attributes['nested'] as object)[0]).toMatch(/^k{256}…\[truncated \d+ characters\]$/);
    expect([fitted.name.length, fitted.agentName!.length, fitted.model!.length].every((n) => n < 600)).toBe(true);
    expect(fitsOneMessage([span(0, { attributes: { [megabyte]: 'v' } })])).toHaveLength(1);
  });

  it('cuts names past their limits at the same characters validation counts, never splitting an emoji', () => {
    const fitted = fitSpan(span(0, { name: '😀'.repeat(513), agentName: `a${'😀'.repeat(250)}`, model: '😀'.repeat(300) }));
    expect(fitted.name).toBe(`${'😀'.repeat(512)}…[truncated 1 characters]`);
    expect(fitted.agentName).toBe(`a${'😀'.repeat(199)}…[truncated 51 characters]`);
    expect(fitted.model).toBe(`${'😀'.repeat(256)}…[truncated 44 characters]`);
    expect([fitted.name, fitted.agentName!, fitted.model!].every((text) => text.isWellFormed())).toBe(true);
  });

  it('names oversized attribute sets by their keys cut short', () => {
    const attributes = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${i}${megabyte.slice(0, 2000)}`, 'v'.repeat(1000)]));
    const note = fitSpan(span(0, { attributes })).attributes['aos.truncated'];
    expect(note).toMatch(/ and \d+ more$/);
    expect(Buffer.byteLength(String(note))).toBeLessThan(4096);
  });

  it('fits the worst span: every text at its limit in escaped control characters, and events without end', () => {
    const escaped = '\u0001'.repeat(40_000);
    const events = Array.from({ length: 500 }, (_, i) => ({ name: escaped, timeMs: i, attributes: { a: escaped, b: escaped.slice(0, 4000) } }));
    const names = {
      name: escaped,
      agentName: escaped,
      statusMessage: escaped,
      errorType: escaped,
      model: escaped,
      provider: escaped,
      operation: escaped,
      toolName: escaped,
      sessionId: escaped,
      userId: escaped,
      experimentId: escaped,
      variant: escaped,
    };
    const attributes = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`a${i}`, escaped.slice(0, 4000)]));
    const [message] = fitsOneMessage([span(0, { ...names, input: escaped, output: escaped, attributes, events })]);
    expect(message!.kind === 'telemetry' && message!.spans[0]!.events.length).toBeGreaterThan(0);
  });

  it('keeps values nested deeper than DynamoDB takes as their JSON text', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { level: deep };
    const fitted = fitSpan(span(0, { attributes: { deep } as never }));
    let depth = 0;
    for (let v: unknown = fitted.attributes; v && typeof v === 'object'; v = Object.values(v as object)[0]) depth++;
    expect(depth).toBeLessThanOrEqual(17);
  });
});

describe('native validation', () => {
  it('refuses a signal value that could not be stored, naming the field', () => {
    const { items, errors } = parseSignals(
      [
        { signalName: 'a', value: 1e308 },
        { signalName: 'b', value: 0.5 },
      ],
      newArrival(0),
    );
    expect(items.map((s) => s.signalName)).toEqual(['b']);
    expect(errors).toEqual([{ index: 0, message: expect.stringMatching(/^value: must be 0 or of magnitude/) }]);
  });

  it('takes ISO 8601 or epoch milliseconds and refuses an end before the start', () => {
    const { items, errors } = parseSpans([
      { traceId: 't', spanId: 'a', name: 'n', startTime: '2026-01-01T00:00:00Z', endTime: 1767225601000 },
      { traceId: 't', spanId: 'b', name: 'n', startTime: 1_764_000_000_010, endTime: 1_764_000_000_005 },
    ]);
    expect(items[0]).toMatchObject({ startTimeMs: 1767225600000, endTimeMs: 1767225601000, kind: 'other', status: 'unset' });
    expect(errors).toEqual([{ index: 1, message: 'endTime: must not be before startTime' }]);
    // Epoch seconds, which as milliseconds are January 1970, out of every list.
    expect(parseSpans([{ traceId: 't', spanId: 'c', name: 'n', startTime: 1_764_000_000 }]).errors).toEqual([
      {
        index: 0,
        message: 'startTime: must be epoch milliseconds; this is before 1973 as milliseconds: epoch seconds? (multiply them by 1000) or send ISO 8601',
      },
    ]);
  });

  it('stores whole the names it takes, emoji counted as one character each, as validation counts them', () => {
    const atLimits = {
      traceId: 't',
      spanId: 'a',
      startTime: 1_764_000_000_000,
      name: '😀'.repeat(512),
      agentName: '😀'.repeat(200),
      statusMessage: '😀'.repeat(4096),
      model: '😀'.repeat(256),
      sessionId: '😀'.repeat(256),
      tags: ['😀'.repeat(256)],
      attributes: { ['😀'.repeat(256)]: 'v' },
    };
    const { items, errors } = parseSpans([atLimits, { ...atLimits, spanId: 'b', agentName: '😀'.repeat(201) }]);
    expect(errors.map((e) => e.index)).toEqual([1]);
    const { traceId, spanId, startTime, ...names } = atLimits;
    expect(fitSpan(items[0]!)).toMatchObject(names);
  });

  it('refuses trace and span ids of dots alone, which no URL can name, and takes dots among other characters', () => {
    const { items, errors } = parseSpans(['.', '..', 'v1.2', '...a'].map((traceId) => ({ traceId, spanId: 's.1', name: 'n', startTime: 1_764_000_000_000 })));
    expect(items.map((s) => s.traceId)).toEqual(['v1.2', '...a']);
    expect(errors.map((e) => e.index)).toEqual([0, 1]);
    expect(errors[0]!.message).toBe('traceId: must be 1–128 letters, digits or . _ : -, not dots alone');
  });

  it('reads a time without an offset as UTC, and refuses text that is not ISO 8601 though Date.parse takes it', () => {
    // Read in another time zone than UTC, where the tests and Lambda run: there the check could not fail.
    const zone = process.env['TZ'];
    process.env['TZ'] = 'America/New_York';
    onTestFinished(() => {
      if (zone === undefined) delete process.env['TZ'];
      else process.env['TZ'] = zone;
    });
    expect(new Date('2026-01-01T10:00:00').getTimezoneOffset()).toBe(300);
    const { items, errors } = parseSignals(
      [
        { signalName: 'a', value: 1, timestamp: '2026-01-01T10:00:00' },
        { signalName: 'b', value: 1, timestamp: '1' },
        { signalName: 'c', value: 1, timestamp: 'Thu, 01 Jan 2026 10:00:00 GMT' },
        { signalName: 'd', value: 1, timestamp: '2026-02-30' },
      ],
      newArrival(0),
    );
    expect(items.map((s) => s.timestampMs)).toEqual([Date.parse('2026-01-01T10:00:00Z')]);
    expect(errors.map((e) => [e.index, e.message])).toEqual(
      [1, 2, 3].map((index) => [index, 'timestamp: must be an ISO 8601 time (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss.sssZ) or epoch milliseconds']),
    );
  });

  // Parsed from text, as a request body is: JSON.parse makes `__proto__` an own key. zod's records dropped it.
  it('keeps a metadata or attribute key named __proto__ under another name, as OTLP attributes are', () => {
    const { items } = parseSpans([
      JSON.parse(
        '{"traceId": "t", "spanId": "a", "name": "n", "startTime": 1764000000000, "metadata": {"__proto__": "kept", "plan": "pro"}, "attributes": {"__proto__": {"a": 1}}}',
      ),
    ]);
    expect(items[0]).toMatchObject({ metadata: { '[__proto__]': 'kept', plan: 'pro' }, attributes: { '[__proto__]': { a: 1 } } });
    expect(Object.getPrototypeOf(items[0]!.attributes)).toBe(Object.prototype);
    const { items: signals } = parseSignals([JSON.parse('{"signalName": "s", "value": 1, "metadata": {"__proto__": "kept"}}')], newArrival(0));
    expect(signals[0]!.metadata).toEqual({ '[__proto__]': 'kept' });
  });
});

describe('the ingest queue message schema', () => {
  it('parses what the service queues, as it was queued', () => {
    const spans = [
      span(1, { tags: ['vip'], metadata: { plan: 'pro', nested: { deep: [1, 'two', null] } }, events: [{ name: 'e', timeMs: 1, attributes: { a: true } }] }),
    ];
    const signals = [{ signalName: 'quality', value: 0.9, traceId: 't', spanId: null, agentName: null, metadata: {}, timestampMs: 5 }];
    const logs = [{ timestampMs: 6, level: 'info' as const, message: 'hello', eventName: null, traceId: 't', spanId: 's1', agentName: 'bot', attributes: {} }];
    for (const message of [
      ...toIngestMessages('tnt', 1, { spans, signals, logs }),
      { kind: 'purge-agent' as const, tenantId: 'tnt', agentId: 'agt', finalSweep: true as const },
      { kind: 'close-traces' as const, tenantId: 'tnt', traceIds: ['t1', 't2'] },
      { kind: 'refresh-session' as const, tenantId: 'tnt', sessionId: 'conversation-1', dueAtMs: 1_800_000_000_000 },
    ]) {
      expect(ingestMessageSchema.parse(JSON.parse(JSON.stringify(message)))).toEqual(message);
    }
  });

  it('refuses a message that is not one, naming what is wrong', () => {
    const [message] = toIngestMessages('tnt', 1, { spans: [span(1)], signals: [], logs: [] });
    const corrupt = { ...message, spans: [{ ...span(1), kind: 'wizard' }] };
    const result = ingestMessageSchema.safeParse(corrupt);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['spans', 0, 'kind']);
    expect(ingestMessageSchema.safeParse({ kind: 'nonsense' }).success).toBe(false);
    expect(ingestMessageSchema.safeParse({ kind: 'purge-agent', tenantId: '', agentId: 'a' }).success).toBe(false);
    expect(ingestMessageSchema.safeParse({ kind: 'close-traces', tenantId: 'tnt', traceIds: [] }).success).toBe(false);
    const tooMany = Array.from({ length: MAX_CLOSE_TRACES + 1 }, (_, i) => `t${i}`);
    expect(ingestMessageSchema.safeParse({ kind: 'close-traces', tenantId: 'tnt', traceIds: tooMany }).success).toBe(false);
    expect(ingestMessageSchema.safeParse({ kind: 'refresh-session', tenantId: 'tnt', sessionId: '', dueAtMs: 1 }).success).toBe(false);
    expect(ingestMessageSchema.safeParse({ kind: 'refresh-session', tenantId: 'tnt', sessionId: 's' }).success).toBe(false);
  });
});
