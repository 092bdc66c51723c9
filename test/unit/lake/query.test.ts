import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/domain/errors.ts';
import { formatSearchQuery, MAX_TERMS, parseSearchQuery, QuerySyntaxError } from '#shared/domain/lake/query.ts';

const terms = (q: string) => parseSearchQuery(q).terms;

describe('the search language', () => {
  it('reads words, prefixes and quoted phrases, folded to lower case without accents', () => {
    expect(terms('Refund café* "Payment  DECLINED" payments.refund')).toEqual([
      { kind: 'text', words: ['refund'], prefix: false, quoted: false, negated: false },
      { kind: 'text', words: ['cafe'], prefix: true, quoted: false, negated: false },
      { kind: 'text', words: ['payment', 'declined'], prefix: false, quoted: true, negated: false },
      { kind: 'text', words: ['payments', 'refund'], prefix: false, quoted: false, negated: false },
    ]);
  });

  it('reads every field term', () => {
    expect(terms('agent:support-bot model:gpt-4o* tool:"payments api" session:S-1 user:u_7 status:ERROR error:timeout attr.customer.tier:gold')).toEqual([
      { kind: 'keyword', field: 'agent', value: 'support-bot', prefix: false, negated: false },
      { kind: 'keyword', field: 'model', value: 'gpt-4o', prefix: true, negated: false },
      { kind: 'keyword', field: 'tool', value: 'payments api', prefix: false, negated: false },
      { kind: 'keyword', field: 'session', value: 'S-1', prefix: false, negated: false },
      { kind: 'keyword', field: 'user', value: 'u_7', prefix: false, negated: false },
      { kind: 'status', value: 'error', negated: false },
      { kind: 'error', words: ['timeout'], prefix: false, quoted: false, negated: false },
      { kind: 'attribute', key: 'customer.tier', value: 'gold', prefix: false, negated: false },
    ]);
  });

  it('reads numbers with their comparisons and units', () => {
    expect(terms('cost>0.5 cost<=$2 duration>=2s duration<1.5m tokens>10k tokens:300 duration>250')).toEqual([
      { kind: 'number', field: 'cost', comparison: '>', value: 0.5, negated: false },
      { kind: 'number', field: 'cost', comparison: '<=', value: 2, negated: false },
      { kind: 'number', field: 'duration', comparison: '>=', value: 2000, negated: false },
      { kind: 'number', field: 'duration', comparison: '<', value: 90_000, negated: false },
      { kind: 'number', field: 'tokens', comparison: '>', value: 10_000, negated: false },
      { kind: 'number', field: 'tokens', comparison: '=', value: 300, negated: false },
      { kind: 'number', field: 'duration', comparison: '>', value: 250, negated: false },
    ]);
  });

  it('negates a term with a leading -, and a lone - is not a term', () => {
    expect(terms('-status:ok -"rate limit"')).toMatchObject([
      { kind: 'status', negated: true },
      { kind: 'text', words: ['rate', 'limit'], negated: true },
    ]);
    expect(() => terms('refund -')).toThrow(QuerySyntaxError);
  });

  it('an empty query matches every trace', () => {
    expect(terms('   ')).toEqual([]);
  });

  it.each([
    ['foo:bar', 1, 'unknown field "foo"'],
    ['refund http://example.com', 8, 'unknown field "http"'],
    ['cost>abc', 1, 'cost needs a number'],
    ['duration>5 days', 1, undefined],
    ['duration>5d', 1, 'units: ms, s, m, h'],
    ['tokens>-1', 1, 'tokens needs a number'],
    ['status:maybe', 1, 'status is ok or error'],
    ['agent:', 1, 'agent: needs a value'],
    ['model>3', 1, 'model takes ":"'],
    ['"unclosed phrase', 1, 'a quote is not closed'],
    ['ab"cd', 1, 'a quote may only start a term'],
    ['"a"b', 1, 'put a space after a closing quote'],
    ['refund !!!', 8, 'has no letters or digits'],
    ['attr.:x', 1, 'attr. needs a key'],
    ['error:***', 1, 'error: needs words'],
  ])('%s is refused pointing at the term', (q, position, reason) => {
    if (reason === undefined) return expect(terms(q)).toHaveLength(2);
    let error: unknown;
    try {
      terms(q);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as QuerySyntaxError).position).toBe(position);
    expect((error as Error).message).toMatch(/^q: /);
    expect((error as Error).message).toContain(reason);
  });

  it('quotes an unclosed phrase to 40 characters, an emoji counted as one', () => {
    expect(() => terms(`"${'a'.repeat(38)}😀 rest`)).toThrow(`"${'a'.repeat(38)}😀"`);
  });

  it('bounds the query', () => {
    expect(() => terms('a '.repeat(MAX_TERMS + 1))).toThrow(`at most ${MAX_TERMS} terms`);
    expect(() => terms('x'.repeat(1001))).toThrow('at most 1000 characters');
    expect(() => terms('😀'.repeat(1000))).not.toThrow('at most 1000 characters');
    expect(() => terms(`"${'w '.repeat(33)}"`)).toThrow('at most 32 words');
  });

  it('writes a query back so that it parses to the same terms', () => {
    for (const q of [
      'refund café* "payment declined" payments.refund',
      'agent:"support bot" model:gpt-4o* tool:x -status:ok error:"rate limit" attr.k.v:"a b" attr.tier:gold*',
      'cost>0.5 duration>=2000 tokens:300 session:S-1 user:"u 7" -refund payments.ref*',
      '"say: hello world" "a \\"quoted\\" word"',
    ]) {
      const once = formatSearchQuery(parseSearchQuery(q));
      expect(formatSearchQuery(parseSearchQuery(once)), q).toBe(once);
      expect(parseSearchQuery(once).terms.map(({ kind, negated }) => [kind, negated])).toEqual(
        parseSearchQuery(q).terms.map(({ kind, negated }) => [kind, negated]),
      );
    }
  });
});
