import { describe, expect, it } from 'vitest';
import { type StoredSpan, summarizeTrace } from '#shared/domain/spans/summary.ts';
import { storedSpan } from '../../support/spans.ts';

const span = (spanId: string, parentSpanId: string | null, over: Partial<StoredSpan> = {}): StoredSpan =>
  storedSpan({ traceId: 't1', spanId, parentSpanId, ...over });

const agentTrace = () => [
  span('root', null, {
    kind: 'agent',
    name: 'answer question',
    startTimeMs: 1000,
    endTimeMs: 5000,
    inputTokens: 300,
    outputTokens: 80,
    cost: 0.01,
    sessionId: 's-1',
  }),
  span('llm1', 'root', { kind: 'llm', model: 'gpt-4o', startTimeMs: 1100, endTimeMs: 2000, inputTokens: 100, outputTokens: 30, cost: 0.004 }),
  span('tool', 'root', { kind: 'tool', toolName: 'search', startTimeMs: 2000, endTimeMs: 3000, status: 'error', errorType: 'Timeout' }),
  span('llm2', 'root', { kind: 'llm', model: 'gpt-4o-mini', startTimeMs: 3000, endTimeMs: 4900, inputTokens: 200, outputTokens: 50, cost: 0.006 }),
];

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('trace summary', () => {
  it('summarises an agent trace from its root, without double-counting usage the root repeats', () => {
    expect(summarizeTrace(agentTrace())).toMatchObject({
      traceId: 't1',
      name: 'answer question',
      rootSpanId: 'root',
      agentName: 'support-bot',
      status: 'ok',
      startTimeMs: 1000,
      endTimeMs: 5000,
      durationMs: 4000,
      spanCount: 4,
      errorCount: 1,
      inputTokens: 300,
      outputTokens: 80,
      totalTokens: 380,
      cost: 0.01,
      model: 'gpt-4o-mini',
      models: ['gpt-4o-mini', 'gpt-4o'],
      sessionId: 's-1',
      complete: true,
    });
  });

  it("keeps its spans' tags, distinct and sorted, and their scalar metadata as text, the root's first", () => {
    const spans = agentTrace();
    spans[0] = { ...spans[0]!, tags: ['vip', 'beta'], metadata: { plan: 'pro', seats: 12, trial: false, nested: { a: 1 }, prompt: 'x'.repeat(300) } };
    spans[1] = { ...spans[1]!, tags: ['beta', 'eu'], metadata: { plan: 'free', region: 'eu-west-1', none: null } };
    const summary = summarizeTrace(spans);
    expect(summary.tags).toEqual(['beta', 'eu', 'vip']);
    expect(summary.metadata).toEqual({ plan: 'pro', seats: '12', trial: 'false', region: 'eu-west-1' });
  });

  it('keeps at most 50 tags and 50 metadata keys', () => {
    const spans = agentTrace();
    spans[0] = {
      ...spans[0]!,
      tags: Array.from({ length: 80 }, (_, i) => `t${String(i).padStart(2, '0')}`),
      metadata: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i])),
    };
    const summary = summarizeTrace(spans);
    expect(summary.tags).toHaveLength(50);
    expect(summary.tags.at(-1)).toBe('t49');
    expect(Object.keys(summary.metadata)).toHaveLength(50);
  });

  it('is the same whatever order the spans arrive in', () => {
    const expected = summarizeTrace(agentTrace());
    for (const order of permutations(agentTrace())) expect(summarizeTrace(order)).toEqual(expected);
  });

  it('is an error trace when the root span failed', () => {
    const spans = agentTrace();
    spans[0] = { ...spans[0]!, status: 'error' };
    expect(summarizeTrace(spans).status).toBe('error');
  });

  it('before the root arrives: incomplete, named after the top-most span, failed if any span failed', () => {
    const partial = agentTrace().slice(1);
    expect(summarizeTrace(partial)).toMatchObject({ rootSpanId: null, name: 'llm1', complete: false, status: 'error', endTimeMs: 4900 });
  });

  it('has no end while the root is still running', () => {
    const spans = agentTrace();
    spans[0] = { ...spans[0]!, endTimeMs: null };
    expect(summarizeTrace(spans)).toMatchObject({ endTimeMs: null, durationMs: null, complete: false });
  });

  it('sums usage over leaf spans when no parent repeats it', () => {
    const spans = agentTrace();
    spans[0] = { ...spans[0]!, inputTokens: null, outputTokens: null, cost: null };
    expect(summarizeTrace(spans)).toMatchObject({ inputTokens: 300, outputTokens: 80, cost: 0.01 });
  });

  it("counts a model call's own usage beside a sub-agent's model call reached through a tool", () => {
    const spans = [
      span('agent', null, { kind: 'agent' }),
      span('llm', 'agent', { kind: 'llm', model: 'gpt-4o', inputTokens: 1000, outputTokens: 500, cost: 0.0075 }),
      span('tool', 'llm', { kind: 'tool', toolName: 'research' }),
      span('sub-llm', 'tool', { kind: 'llm', model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, cost: 0.000005 }),
    ];
    expect(summarizeTrace(spans)).toMatchObject({
      inputTokens: 1010,
      outputTokens: 505,
      cost: 0.007505,
      model: 'gpt-4o',
      models: ['gpt-4o', 'gpt-4o-mini'],
    });
  });

  it("counts a model call beside a tool beneath it that reports its sub-agent's usage", () => {
    const spans = [
      span('llm', null, { kind: 'llm', model: 'gpt-4o', inputTokens: 1000, outputTokens: 500 }),
      span('tool', 'llm', { kind: 'tool', toolName: 'research', inputTokens: 10, outputTokens: 5 }),
      span('embed', 'llm', { kind: 'embedding', model: 'text-embedding-3-small', inputTokens: 7 }),
    ];
    expect(summarizeTrace(spans)).toMatchObject({ inputTokens: 1017, outputTokens: 505, model: 'gpt-4o' });
  });

  it('counts once a model call a framework span and the provider span directly beneath it both report', () => {
    const spans = [
      span('chain', null, { kind: 'chain', inputTokens: 100, outputTokens: 20 }),
      span('framework-llm', 'chain', { kind: 'llm', model: 'gpt-4o', inputTokens: 100, outputTokens: 20 }),
      span('provider-llm', 'framework-llm', { kind: 'llm', model: 'gpt-4o-2024-08-06', inputTokens: 100, outputTokens: 20 }),
    ];
    expect(summarizeTrace(spans)).toMatchObject({ inputTokens: 100, outputTokens: 20, models: ['gpt-4o-2024-08-06'] });
  });

  it('holds sums past 2^53 at the limit the store reads back, where each span is within it', () => {
    const huge = Number.MAX_SAFE_INTEGER - 1;
    const summary = summarizeTrace([
      span('a', null, { cost: 5e15, inputTokens: huge, outputTokens: huge }),
      span('b', null, { cost: 5e15, inputTokens: huge, outputTokens: 1 }),
    ]);
    expect(summary).toMatchObject({
      cost: Number.MAX_SAFE_INTEGER,
      inputTokens: Number.MAX_SAFE_INTEGER,
      outputTokens: Number.MAX_SAFE_INTEGER,
      totalTokens: Number.MAX_SAFE_INTEGER,
    });
  });

  it('survives a parent cycle in bad data', () => {
    const spans = [span('a', 'b', { inputTokens: 5 }), span('b', 'a', { inputTokens: 7 })];
    expect(summarizeTrace(spans).spanCount).toBe(2);
  });
});
