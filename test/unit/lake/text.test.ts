import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { matchOf, snippetOf } from '#shared/domain/lake/snippets.ts';
import {
  attributeWord,
  foldText,
  foldWithOrigins,
  keywordList,
  SIGNATURE_BITS,
  SIGNATURE_COLUMNS,
  signatureOf,
  signatureSlot,
} from '#shared/domain/lake/text.ts';
import { seededRandom } from '../../support/random.ts';

describe('folding text for search', () => {
  it('lower-cases, drops accents and turns everything but letters and digits into single spaces', () => {
    expect(foldText('Hello, Wörld! Café—refund #123 ÆØÅ')).toBe(' hello world cafe refund 123 æøa ');
    expect(foldText('...')).toBe(' ');
    expect(foldText('payments.refund_v2')).toBe(' payments refund v2 ');
  });

  it('keeps where each folded character came from, and folds exactly as foldText does', () => {
    const r = seededRandom(7);
    const alphabet = ['a', 'B', 'é', 'İ', ' ', '.', '—', '7', 'ß', '😀', 'ﬁ', '\n', 'Z'];
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: r.int(0, 30) }, () => r.pick(alphabet)).join('');
      const { text: folded, origins } = foldWithOrigins(text);
      expect(folded, JSON.stringify(text)).toBe(foldText(text));
      expect(origins).toHaveLength(folded.length);
      expect(origins.every((o, j) => o >= 0 && o <= text.length && (j === 0 || o >= origins[j - 1]!))).toBe(true);
    }
  });

  it('keeps keyword lists as whole lower-cased values between newlines', () => {
    expect(keywordList(['GPT-4o', 'gpt-4o', 'claude\nsonnet', ''])).toBe('\ngpt-4o\nclaude sonnet\n');
    expect(keywordList([])).toBe('\n');
  });
});

describe('the word signature', () => {
  it('puts a word in one column, within the bits a BIGINT holds exactly in JavaScript', () => {
    for (const word of ['refund', 'a', 'ü', 'x'.repeat(300)]) {
      const { column, mask } = signatureSlot(word);
      expect(column).toBeGreaterThanOrEqual(0);
      expect(column).toBeLessThan(SIGNATURE_COLUMNS);
      expect(Number.isSafeInteger(mask) && mask > 0 && mask < 2 ** SIGNATURE_BITS).toBe(true);
    }
  });

  it('gives every word the slot it has always had: lakes written before keep answering searches', () => {
    expect(signatureSlot('refund')).toEqual({ column: 19, mask: 8796109799492 });
    expect(signatureSlot('declined')).toEqual({ column: 62, mask: 9345915947008 });
    expect(signatureSlot('überweisung')).toEqual({ column: 11, mask: 70646306439168 });
    expect(signatureSlot('注文')).toEqual({ column: 50, mask: 278937600 });
    expect(signatureSlot(attributeWord('model', 'gpt-4o'))).toEqual({ column: 23, mask: 274924044288 });
  });

  it('has every word of a trace, and rarely a word it lacks (150 distinct words: under 1 in 400)', () => {
    const words = Array.from({ length: 150 }, (_, i) => `word${i}`);
    const signature = signatureOf(words);
    const has = (word: string) => {
      const { column, mask } = signatureSlot(word);
      return (BigInt(signature[column]!) & BigInt(mask)) === BigInt(mask);
    };
    expect(words.every(has)).toBe(true);
    const falsePositives = Array.from({ length: 20_000 }, (_, i) => `other${i}`).filter(has).length;
    expect(falsePositives / 20_000).toBeLessThan(0.0025);
  });
});

describe('search hit snippets', () => {
  const span = (fields: Record<string, string | null>) => ({
    span_id: 's1',
    name: 'lookup',
    kind: 'tool',
    status: 'ok',
    tool_name: null,
    input: null,
    output: null,
    error_type: null,
    status_message: null,
    attributes: '{}',
    ...fields,
  });

  it('shows where a word matched, in the original text, with context cut at spaces', () => {
    const output = `${'lorem ipsum '.repeat(20)}the Réfunds were reimbursed quickly ${'dolor sit '.repeat(20)}`;
    const match = matchOf(parseSearchQuery('refund*'), [span({ output })])!;
    expect(match).toMatchObject({ spanId: 's1', field: 'output' });
    expect(match.snippet.startsWith('…')).toBe(true);
    expect(match.snippet.endsWith('…')).toBe(true);
    expect(match.snippet.slice(match.highlight.start, match.highlight.end)).toBe('Réfunds');
  });

  it('finds a phrase across punctuation and the first span that has it', () => {
    const spans = [span({ span_id: 'a', input: 'nothing here' }), span({ span_id: 'b', output: 'Payment—DECLINED by bank' })];
    const match = matchOf(parseSearchQuery('"payment declined"'), spans)!;
    expect(match.spanId).toBe('b');
    expect(match.snippet.slice(match.highlight.start, match.highlight.end)).toBe('Payment—DECLINED');
  });

  it('points a field term at its span, and answers null for trace-level terms', () => {
    expect(matchOf(parseSearchQuery('tool:pay*'), [span({ tool_name: 'payments.refund' })])).toMatchObject({ field: 'toolName', snippet: 'payments.refund' });
    expect(matchOf(parseSearchQuery('attr.tier:gold'), [span({ attributes: JSON.stringify({ tier: 'Gold' }) })])).toMatchObject({
      field: 'attributes.tier',
      snippet: 'Gold',
    });
    expect(matchOf(parseSearchQuery('cost>1'), [span({})])).toBeNull();
  });

  it('cuts a snippet around a match at the start and end of a text', () => {
    expect(snippetOf('refund now', { start: 0, end: 6 })).toEqual({ snippet: 'refund now', highlight: { start: 0, end: 6 } });
  });

  it('cuts a snippet between characters, never through an emoji (a surrogate pair)', () => {
    const emojis = '😀'.repeat(60);
    // An odd letter before the match puts the snippet's start inside an emoji; after it, its end.
    for (const [before, after] of [
      ['x', ''],
      ['', 'y'],
    ] as const) {
      const text = `${emojis}${before}refund${after}${emojis}`;
      const start = emojis.length + before.length;
      const { snippet, highlight } = snippetOf(text, { start, end: start + 6 });
      expect(snippet.isWellFormed(), snippet).toBe(true);
      expect(snippet.slice(highlight.start, highlight.end)).toBe('refund');
    }
  });
});
