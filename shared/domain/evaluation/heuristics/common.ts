/** What the heuristics share: their result, and small text tools. */

import { characterCount, textPrefix } from '../../well-formed.ts';

/** One heuristic's verdict before it is labelled: a score 0–1 and why. */
export interface Finding {
  score: number;
  reasoning: string;
}

const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it ' +
    'its itself just me more most my no nor not now of off on once only or other our ours out over own please same she should so some ' +
    'such than that the their theirs them then there these they this those through to too under until up very was we were what when ' +
    'where which while who whom why will with would you your yours yes ok okay thanks thank hello hi sure here let get got'
  ).split(' '),
);

/** Lower-cased words (letters and digits) of a text. */
const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Crude stemming, enough to match "orders" with "order" and "shipped" with "shipping". */
const stem = (word: string): string => word.replace(/(?:ing|ed|es|s)$/, '') || word;

/** The words that carry meaning: no stop words, no one- or two-letter words, stemmed. */
export const contentWordsOf = (text: string): Set<string> =>
  new Set(
    wordsOf(text)
      .filter((w) => w.length > 2 && !STOPWORDS.has(w))
      .map(stem),
  );

/** Compared after lower-casing and collapsing whitespace. */
export const normalized = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** Shortened for a reasoning line: `"a long quo…"`. */
export const quoted = (text: string, max = 60): string => `"${characterCount(text) > max ? `${textPrefix(text, max - 1)}…` : text}"`;

/** `["a", "b", "c"]` → `a, b and c`. */
export const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** Combines independent pieces of evidence: 1 − Π(1 − wᵢ). */
export const combined = (weights: readonly number[]): number => 1 - weights.reduce((rest, w) => rest * (1 - w), 1);

export const round2 = (n: number): number => Math.round(n * 100) / 100;
