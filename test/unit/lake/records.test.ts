import { describe, expect, it } from 'vitest';
import { lakeRowsOf, MAX_SEARCH_TEXT_BYTES } from '#shared/domain/lake/records.ts';
import type { StoredSpan } from '#shared/domain/spans/summary.ts';
import { summarizeTrace } from '#shared/domain/spans/summary.ts';
import { storedSpan } from '../../support/spans.ts';

/** What Firehose takes in one record. */
const FIREHOSE_RECORD_BYTES = 1_024_000;

const span = (i: number, over: Partial<StoredSpan>): StoredSpan =>
  storedSpan({
    traceId: 't-cjk',
    spanId: `s${i}`,
    parentSpanId: i === 0 ? null : 's0',
    name: `step ${i}`,
    kind: 'llm',
    agentName: 'bot',
    startTimeMs: 1_000 + i,
    endTimeMs: 2_000 + i,
    ...over,
  });

describe("a trace's lake row", () => {
  it('fits one Firehose record whatever the script of its text: search text, errors and attributes are capped in bytes', () => {
    const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${'漢字検索'.repeat(3)}${i}`).join(' ');
    const spans = Array.from({ length: 40 }, (_, i) =>
      span(i, {
        input: words(2_000, '入力'),
        output: words(2_000, '出力'),
        status: 'error',
        errorType: '障害'.repeat(50),
        statusMessage: words(400, '失敗'),
        attributes: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`属性${k}`, '値'.repeat(200)])),
      }),
    );
    const [row] = lakeRowsOf('tnt_1', [{ summary: summarizeTrace(spans), spans, revision: 1 }], [], 9_000_000_000_000).traces;
    expect(Buffer.byteLength(String(row!['search_text']))).toBeLessThanOrEqual(MAX_SEARCH_TEXT_BYTES);
    expect(row!['text_cut']).toBe(true);
    expect(String(row!['search_text'])).toMatch(/^ \S.* $/s);
    expect(Buffer.byteLength(`${JSON.stringify(row)}\n`)).toBeLessThan(FIREHOSE_RECORD_BYTES);
  });

  it('keeps the fields of its search text apart, so a phrase cannot run from one field into the next', () => {
    const spans = [
      span(0, { name: 'payment', input: 'declined card', output: 'refund issued', status: 'error', errorType: 'Card Error', statusMessage: 'declined' }),
    ];
    const [row] = lakeRowsOf('tnt_1', [{ summary: summarizeTrace(spans), spans, revision: 1 }], [], 9_000_000_000_000).traces;
    const text = String(row!['search_text']);
    for (const within of [' payment ', ' declined card ', ' refund issued ']) expect(text).toContain(within);
    for (const across of [' payment declined ', ' card refund ']) expect(text).not.toContain(across);
    expect(String(row!['errors_text'])).not.toContain(' error declined ');
    expect(String(row!['errors_text'])).toContain(' card error ');
  });
});
