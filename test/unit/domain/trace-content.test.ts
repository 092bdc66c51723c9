import { describe, expect, it } from 'vitest';
import { boundTraceContent, contentBytesOf, TRACE_CONTENT_BYTES } from '#shared/domain/ingest/trace-content.ts';
import type { StoredSummary } from '#shared/domain/spans/ports.ts';
import { spanGroupsOf } from '#shared/domain/spans/span-groups.ts';
import { summarizeTrace } from '#shared/domain/spans/summary.ts';
import { storedSpan } from '../../support/spans.ts';

const KB = 1024;
const call = (spanId: string, traceId = 't1') =>
  storedSpan({
    traceId,
    spanId,
    parentSpanId: 'root',
    kind: 'llm',
    input: 'p'.repeat(32 * KB),
    output: 'a'.repeat(32 * KB),
    attributes: { step: spanId },
    inputTokens: 10,
  });
const message = (...spans: ReturnType<typeof call>[]) => ({ spans, expiresAt: 1 });
const summaryHolding = (contentBytes: number, spanGroups: string[] = []): StoredSummary => ({
  summary: summarizeTrace([storedSpan({ traceId: 't1', spanId: 'root' })], null),
  revision: 1,
  expiresAt: 1,
  spanGroups,
  contentBytes,
});

describe("a trace's content bound", () => {
  it('keeps what arrives while the trace holds less than the bound', () => {
    const arrivals = [message(call('a'), call('b'))];
    expect(boundTraceContent(arrivals, new Map([['t1', summaryHolding(TRACE_CONTENT_BYTES - 1)]]))).toEqual(arrivals);
    expect(boundTraceContent(arrivals, new Map())).toEqual(arrivals);
  });

  it('cuts the inputs, outputs and attributes of spans arriving once it holds the bound, keeping their figures and ids, and says why', () => {
    const cut = boundTraceContent([message(call('a'))], new Map([['t1', summaryHolding(TRACE_CONTENT_BYTES)]]))[0]!.spans[0]!;
    expect(cut).toMatchObject({ spanId: 'a', kind: 'llm', inputTokens: 10 });
    expect(cut.input).toMatch(/^p{1024}…\[left out: 31744 characters; this trace already holds 16 MB of inputs, outputs and attributes\]$/);
    expect(cut.output).toMatch(/^a{1024}…\[left out: 31744 characters;/);
    expect(cut.attributes).toEqual({ 'aos.truncated': '1 attributes left out: this trace already holds 16 MB of inputs, outputs and attributes' });
    expect(contentBytesOf(cut)).toBeLessThan(3 * KB);
  });

  it('counts the groups before it in the batch: the message that reaches the bound is kept, the next cut', () => {
    const nearly = summaryHolding(TRACE_CONTENT_BYTES - 10);
    const [first, second] = boundTraceContent([message(call('a')), message(call('b'))], new Map([['t1', nearly]]));
    expect(first!.spans[0]!.input).toHaveLength(32 * KB);
    expect(second!.spans[0]!.input).toMatch(/left out/);
    // Another trace of the batch has its own bound.
    const [other] = boundTraceContent([message(call('c', 't2'))], new Map([['t1', summaryHolding(TRACE_CONTENT_BYTES)]]));
    expect(other!.spans[0]!.input).toHaveLength(32 * KB);
  });

  it('keeps a group the summary lists already as sent: a message delivered again does not replace what was stored whole', () => {
    const again = message(call('a'));
    const listed = spanGroupsOf(again.spans)[0]!.groupId;
    expect(boundTraceContent([again], new Map([['t1', summaryHolding(TRACE_CONTENT_BYTES + 64 * KB, [listed])]]))).toEqual([again]);
  });

  it('cuts a text at its head in characters (code points), an emoji whole', () => {
    const text = `${'x'.repeat(1023)}😀${'y'.repeat(40 * KB)}`;
    const span = { ...call('a'), input: text };
    const [cut] = boundTraceContent([message(span)], new Map([['t1', summaryHolding(TRACE_CONTENT_BYTES)]]));
    expect(cut!.spans[0]!.input!.startsWith(`${'x'.repeat(1023)}😀…[left out: 40960 characters;`)).toBe(true);
  });
});
