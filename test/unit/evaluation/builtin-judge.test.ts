import { describe, expect, it } from 'vitest';
import type { LlmAlertType } from '#shared/domain/alerts/config.ts';
import { builtinJudge } from '#shared/domain/evaluation/heuristics/index.ts';
import { buildTrajectory } from '#shared/domain/evaluation/trajectory.ts';
import { llm, type TraceSpec, tool, traceOf } from '../../fixtures/judge/build.ts';
import { measure } from '../../fixtures/judge/measure.ts';
import { LABELLED_TRACES } from '../../fixtures/judge/traces.ts';

const judge = async (type: LlmAlertType, spec: TraceSpec) => {
  const { summary, spans } = traceOf('t', spec);
  return (await builtinJudge.judge(type, buildTrajectory(summary, spans, 6000))).verdict;
};
const answer = (output: string, input = 'Tell me about it.', steps: TraceSpec['steps'] = []) => ({ input, steps, output });

describe('the built-in judge', () => {
  it('says it is a heuristic, labels by score and uses no model', async () => {
    const { summary, spans } = traceOf('t', answer(''));
    const result = await builtinJudge.judge('quality', buildTrajectory(summary, spans, 6000));
    expect(result).toEqual({ verdict: { score: 0.95, label: 'poor', reasoning: 'Built-in heuristic: the final output is empty.' }, usage: null });
  });

  it('is deterministic', async () => {
    const spec = LABELLED_TRACES.find((t) => t.id === 'stuck-list-read-cycle')!.trace;
    expect(await judge('stuck', spec)).toEqual(await judge('stuck', spec));
  });

  describe('stuck', () => {
    it('counts identical calls, and a cycle only once, not as its own halves', async () => {
      const verdict = await judge(
        'stuck',
        answer(
          'No luck.',
          'Find it.',
          Array.from({ length: 3 }, () => tool('find', { q: 'x' }, 'nothing')),
        ),
      );
      expect(verdict).toMatchObject({ score: 0.7, label: 'stuck', reasoning: 'Built-in heuristic: 3 identical calls to find with the same arguments.' });
    });

    it('finds a step repeated in a row when spans carry no content', async () => {
      const steps = Array.from({ length: 4 }, () => ({ kind: 'tool' as const, name: 'browser.scroll', tool: 'browser.scroll' }));
      expect(await judge('stuck', answer('Done.', 'Scroll.', steps))).toMatchObject({
        score: 0.8,
        reasoning: expect.stringContaining('browser.scroll 4 times in a row'),
      });
    });

    it('does not count short repeated outputs such as "ok"', async () => {
      expect((await judge('stuck', answer('Done.', 'Go.', [llm('ok'), tool('a', 1, 'x'), llm('ok'), tool('b', 2, 'y'), llm('ok')]))).score).toBe(0);
    });
  });

  describe('nsfw', () => {
    it('matches whole words only, plurals included', async () => {
      expect((await judge('nsfw', answer('Sussex, Scunthorpe, cocktails, Charles Dickens, the therapist, analysis, classic.'))).score).toBe(0);
      expect((await judge('nsfw', answer('They shared dildos.'))).score).toBe(0.85);
    });

    it('reads what the agent wrote, not what the user asked', async () => {
      expect((await judge('nsfw', answer('I cannot help with that request.', 'Send me porn.'))).score).toBe(0);
    });

    it('needs several mild terms to alert', async () => {
      expect((await judge('nsfw', answer('That is bullshit.'))).score).toBe(0.35);
    });
  });

  describe('quality', () => {
    it('flags a refusal, a cut answer and an off-topic one, and passes a direct answer', async () => {
      expect((await judge('quality', answer('As an AI language model, I cannot answer that.'))).score).toBe(0.85);
      expect((await judge('quality', answer('The steps are: first open settings and'))).reasoning).toMatch(/stops mid-sentence/);
      expect((await judge('quality', answer('Bananas grow in tropical plantations worldwide.', 'How do I rotate my database credentials safely?'))).score).toBe(
        0.75,
      );
      expect(
        (await judge('quality', answer('Rotate the database credentials from the secrets page.', 'How do I rotate my database credentials safely?'))).score,
      ).toBe(0.05);
    });

    it('does not judge a trace that records no input or output at all', async () => {
      expect(await judge('quality', { input: null, steps: [{ kind: 'llm', name: 'chat' }], output: null })).toMatchObject({ score: 0, label: 'good' });
    });
  });

  describe('hallucination', () => {
    it('checks numbers, URLs and quoted names against the inputs and tool results, not against LLM outputs', async () => {
      const steps = [llm('The fee is $49.'), tool('fees.get', {}, '{"fee": 39}')];
      expect(await judge('hallucination', answer('The fee is $49.', 'What is the fee?', steps))).toMatchObject({ score: 0.7, label: 'hallucinated' });
      expect((await judge('hallucination', answer('The fee is $39.', 'What is the fee?', steps))).score).toBe(0);
    });

    it('leaves small counts alone and accepts sums and differences of given figures', async () => {
      const steps = [tool('stock.get', {}, '{"warehouse_a": 120, "warehouse_b": 80}')];
      expect((await judge('hallucination', answer('We have 200 units in 2 warehouses, 40 more in A than in B.', 'Stock?', steps))).score).toBe(0);
    });
  });
});

describe('the built-in judge on the labelled traces', () => {
  it('has at least 40 hand-labelled traces, at least 10 per type with positives and negatives', () => {
    expect(LABELLED_TRACES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(LABELLED_TRACES.map((t) => t.id)).size).toBe(LABELLED_TRACES.length);
    for (const type of ['hallucination', 'nsfw', 'stuck', 'quality'] as const) {
      const labels = LABELLED_TRACES.map((t) => t.labels[type]).filter((l) => l !== undefined);
      expect(labels.length, type).toBeGreaterThanOrEqual(10);
      expect(labels.filter((l) => l).length, type).toBeGreaterThanOrEqual(4);
      expect(labels.filter((l) => !l).length, type).toBeGreaterThanOrEqual(4);
    }
  });

  // What `npm run eval:judge` measured; raise these when the heuristics improve, never lower them.
  const FLOORS: Record<LlmAlertType, { precision: number; recall: number }> = {
    hallucination: { precision: 5 / 6, recall: 5 / 6 },
    nsfw: { precision: 5 / 7, recall: 5 / 6 },
    stuck: { precision: 1, recall: 5 / 6 },
    quality: { precision: 5 / 6, recall: 5 / 7 },
  };

  it.each(Object.entries(FLOORS))('keeps %s precision and recall at or above what was measured', async (type, floor) => {
    const measured = (await measure(builtinJudge)).find((m) => m.type === type)!;
    expect(measured.precision, `precision; wrong: ${measured.wrong.join(', ')}`).toBeGreaterThanOrEqual(floor.precision - 1e-9);
    expect(measured.recall, `recall; wrong: ${measured.wrong.join(', ')}`).toBeGreaterThanOrEqual(floor.recall - 1e-9);
  });
});
