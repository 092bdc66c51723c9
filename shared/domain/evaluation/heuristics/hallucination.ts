import type { Trajectory } from '../trajectory.ts';
import { combined, type Finding, listed, normalized } from './common.ts';

/** How strongly one unsupported claim of each kind suggests a made-up answer. */
const WEIGHTS = { url: 0.8, figure: 0.7, number: 0.55, quote: 0.5 } as const;
type ClaimKind = keyof typeof WEIGHTS;

interface Claim {
  kind: ClaimKind;
  text: string;
  supported: boolean;
}

const URL = /https?:\/\/[^\s<>"'`)\]]+/gi;
/** A number not inside a word or another number, with an optional currency sign, thousands separators, decimals and percent. */
const NUMBER = /(?<![\p{L}\p{N}.,])([$€£¥]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(\s?(?:%|percent\b))?/gu;
const QUOTE = /["“]([^"”\n]{2,80})["”]/g;
/** Small bare numbers are counts and list positions more often than facts. */
const MAX_UNCHECKED_NUMBER = 10;
/** Sums and differences of pairs are tried only among this many evidence numbers. */
const MAX_PAIRED_NUMBERS = 60;

const urlKey = (url: string) =>
  url
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .replace(/[/.,;:!?]+$/, '');

interface FoundNumber {
  value: number;
  decimals: number;
  figure: boolean;
  text: string;
}

function numbersIn(text: string): FoundNumber[] {
  return [...text.replace(URL, ' ').matchAll(NUMBER)].map((m) => ({
    value: Number(`${m[2]!.replace(/,/g, '')}${m[3] ? `.${m[3]}` : ''}`),
    decimals: m[3]?.length ?? 0,
    figure: Boolean(m[1] || m[4]),
    text: m[0].trim(),
  }));
}

/**
 * The numbers an answer may state without making anything up: those in the evidence, and sums and
 * differences of two of them (a total, a change); a percentage may also be a fraction ×100.
 */
function derivableNumbers(evidence: readonly number[]): number[] {
  const distinct = [...new Set(evidence)];
  const paired = distinct.slice(0, MAX_PAIRED_NUMBERS);
  const pairs = paired.flatMap((a, i) => paired.slice(i + 1).flatMap((b) => [a + b, Math.abs(a - b)]));
  return [...distinct, ...distinct.map((n) => n * 100), ...pairs, distinct.reduce((a, b) => a + b, 0)];
}

/** Equal once the evidence is rounded to the answer's precision ("12.3" for 12.345). */
const matches = (claim: FoundNumber, known: number) => Math.abs(claim.value - known) <= 0.5 * 10 ** -claim.decimals + 1e-9;

/** What the answer may rely on: the user's input, every step's input, and what tools and retrievals returned (not what LLMs wrote). */
function evidenceOf(t: Trajectory): string {
  const produced = (kind: string) => kind === 'llm' || kind === 'agent' || kind === 'chain';
  return [t.userInput, ...t.steps.flatMap((s) => [s.input, produced(s.kind) ? null : s.output])].filter((x) => x !== null).join('\n');
}

function claimsOf(answer: string, evidence: string): Claim[] {
  const known = normalized(evidence);
  const knownUrls = known.replace(/https?:\/\/(www\.)?/g, '');
  const evidenceNumbers = derivableNumbers(numbersIn(evidence).map((n) => n.value));
  const urls = [...new Set(answer.match(URL) ?? [])].map((url) => ({ kind: 'url' as const, text: url, supported: knownUrls.includes(urlKey(url)) }));
  const numbers = numbersIn(answer)
    .filter((n) => n.figure || n.decimals > 0 || n.value > MAX_UNCHECKED_NUMBER)
    .map((n) => ({ kind: n.figure ? ('figure' as const) : ('number' as const), text: n.text, supported: evidenceNumbers.some((k) => matches(n, k)) }));
  const quotes = [...answer.matchAll(QUOTE)].map((m) => ({ kind: 'quote' as const, text: `"${m[1]}"`, supported: known.includes(normalized(m[1]!)) }));
  const unique = new Map([...urls, ...numbers, ...quotes].map((c) => [`${c.kind}:${c.text}`, c]));
  return [...unique.values()];
}

/**
 * Groundedness, not truth: figures, URLs and quoted names in the final answer that appear nowhere in
 * the user input, the tool results or the prompts. A fact the model knew (or invented) without a
 * source in the trace counts as unsupported; a wrong figure copied from a tool does not.
 */
export function judgeHallucination(t: Trajectory): Finding {
  const answer = t.finalOutput ?? '';
  const claims = claimsOf(answer, evidenceOf(t));
  if (claims.length === 0) return { score: 0, reasoning: 'the answer states no figures, URLs or quoted names to check' };
  const unsupported = claims.filter((c) => !c.supported);
  if (unsupported.length === 0)
    return { score: 0, reasoning: `all ${claims.length} figures, URLs and quoted names in the answer appear in the inputs or tool results` };
  return {
    score: Math.min(0.99, combined(unsupported.map((c) => WEIGHTS[c.kind]))),
    reasoning: `the answer states ${listed(unsupported.slice(0, 8).map((c) => c.text))}${unsupported.length > 8 ? ` and ${unsupported.length - 8} more` : ''}, found nowhere in the inputs or tool results (${claims.length - unsupported.length} of ${claims.length} claims supported)`,
  };
}
