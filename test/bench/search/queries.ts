import { SEARCH_PHRASES, SEARCH_WORDS } from './corpus.ts';
import type { BenchLake } from './seed.ts';

export const QUERY_KINDS = ['word', 'phrase', 'field', 'combined'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** What the bench searches for: words and phrases from everywhere to nowhere, each field, and mixes. */
export function queriesOf(lake: BenchLake): Record<QueryKind, string[]> {
  const sample = lake.samples.find((s) => s.toolOutput) ?? lake.samples[0]!;
  const tracking = sample.toolOutput ? (JSON.parse(sample.toolOutput) as { tracking: string }).tracking : 'TRKNONE';
  return {
    word: [...SEARCH_WORDS.everywhere, ...SEARCH_WORDS.common, ...SEARCH_WORDS.uncommon, ...SEARCH_WORDS.absent, tracking],
    phrase: [...SEARCH_PHRASES, `"${tracking}"`],
    field: [
      'agent:billing-agent',
      'tool:flights.search',
      'status:error',
      'model:gemini-2.5-flash',
      'cost>0.05',
      'duration>20s',
      'tokens>10k',
      'attr.customer.tier:platinum',
      `session:${sample.sessionId}`,
      'error:timeout',
    ],
    combined: [
      'refund agent:support-bot status:error',
      '"payment declined" tool:payments* cost>0.001',
      'hotel agent:trip-planner duration>10s -status:error',
      'zürich attr.deployment.region:eu-west tokens>2k',
      `${tracking} tool:orders.lookup`,
      'invoice -agent:billing-agent model:gpt-4o*',
    ],
  };
}
