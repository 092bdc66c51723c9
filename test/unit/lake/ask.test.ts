import { describe, expect, it } from 'vitest';
import { type AskContext, builtinTranslator, stemOf } from '#shared/domain/lake/ask.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';

const context: AskContext = {
  now: new Date('2026-03-18T15:30:00Z'), // a Wednesday
  agents: [
    { id: 'agt_1', name: 'support-bot' },
    { id: 'agt_2', name: 'Billing Agent' },
  ],
  models: ['gpt-4o', 'gpt-4o-mini'],
  tools: ['payments.refund', 'orders.lookup'],
};
const translate = (question: string) => builtinTranslator.translate(question, context);

describe('the built-in question parser', () => {
  it.each([
    [
      'failed support-bot runs yesterday that cost more than a dollar',
      'agent:support-bot cost>1 status:error',
      '2026-03-17T00:00:00.000Z',
      '2026-03-17T23:59:59.999Z',
    ],
    ['traces where the user asked about refunds and the agent called the payments tool', 'tool:payments* refund*', undefined, undefined],
    ['timeout errors in the last 24 hours', 'error:timeout', '2026-03-17T15:30:00.000Z', '2026-03-18T15:30:00.000Z'],
    ['runs slower than 5 seconds using gpt-4o-mini this week', 'model:gpt-4o-mini duration>5s', '2026-03-16T00:00:00.000Z', '2026-03-18T15:30:00.000Z'],
    [
      'Billing Agent calls over $0.50 last week with more than 10k tokens',
      'agent:"Billing Agent" cost>0.5 tokens>10k',
      '2026-03-09T00:00:00.000Z',
      '2026-03-15T23:59:59.999Z',
    ],
    ['successful runs mentioning "order A-17" today', '"order a-17" status:ok', '2026-03-18T00:00:00.000Z', '2026-03-18T15:30:00.000Z'],
    ['traces of session sess-42 last month', 'session:sess-42', '2026-02-01T00:00:00.000Z', '2026-02-28T23:59:59.999Z'],
    ['requests that took longer than 2 minutes and used orders.lookup', 'tool:orders.lookup duration>2m', undefined, undefined],
  ])('%s', async (question, q, startDate, endDate) => {
    const translation = await translate(question);
    expect(translation.understood).toBe(true);
    if (!translation.understood) return;
    const termsOf = (text: string) => text.match(/(?:[^\s"]+|"[^"]*")+/g)!.sort();
    expect(termsOf(translation.q)).toEqual(termsOf(q));
    expect(() => parseSearchQuery(translation.q)).not.toThrow();
    expect(translation.startDate?.toISOString()).toBe(startDate);
    expect(translation.endDate?.toISOString()).toBe(endDate);
  });

  it('says which words it did not use', async () => {
    expect(await translate('failed runs with purple elephants')).toMatchObject({ understood: true, q: 'status:error', ignored: ['purple', 'elephants'] });
  });

  it('says when it understood nothing', async () => {
    expect(await translate('what is the meaning of life')).toMatchObject({ understood: false });
  });

  it('is deterministic', async () => {
    const question = 'failed support-bot runs yesterday that cost more than a dollar';
    expect(await translate(question)).toEqual(await translate(question));
  });

  it('stems plural nouns for prefix search', () => {
    expect(['refunds', 'deliveries', 'boxes', 'class', 'bus'].map(stemOf)).toEqual(['refund', 'deliver', 'box', 'class', 'bus']);
  });
});
