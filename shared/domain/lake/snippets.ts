import type { SearchQuery, Term, TextTerm } from './query.ts';
import { attributePairs } from './records.ts';
import type { LakeRow } from './schema.ts';
import { foldText, foldWithOrigins, keywordOf } from './text.ts';

/** Where in a trace a search hit matched: the span, which of its fields, and the words in context. */
export interface SearchMatch {
  spanId: string;
  spanName: string;
  spanKind: string;
  /** `name`, `toolName`, `input`, `output`, `errorType`, `statusMessage`, `model` or `attributes.<key>`. */
  field: string;
  /** Up to about 200 characters of the field around the match, `…` where it was cut. */
  snippet: string;
  /** The matched text within `snippet` ([start, end) in UTF-16 code units). */
  highlight: { start: number; end: number };
}

const CONTEXT_CHARS = 80;

const TEXT_FIELDS = [
  ['name', 'name'],
  ['toolName', 'tool_name'],
  ['input', 'input'],
  ['output', 'output'],
  ['errorType', 'error_type'],
  ['statusMessage', 'status_message'],
] as const;
const ERROR_FIELDS = TEXT_FIELDS.slice(4);

/** Where the words of a term occur in a text, in the original's positions. */
function locate(text: string, term: TextTerm): { start: number; end: number } | undefined {
  const needle = ` ${term.words.join(' ')}${term.prefix ? '' : ' '}`;
  // Most fields do not match: a quick look first; positions only for the field that does.
  if (!foldText(text).includes(needle)) return undefined;
  const { text: folded, origins } = foldWithOrigins(text);
  const at = folded.indexOf(needle);
  if (at < 0) return undefined;
  let last = at + needle.length - (term.prefix ? 1 : 2);
  // A prefix runs on to the end of its word.
  while (term.prefix && folded[last + 1] !== ' ' && last + 1 < folded.length) last++;
  const start = origins[at + 1]!;
  const endCodePoint = text.codePointAt(origins[last]!) ?? 0;
  return { start, end: origins[last]! + (endCodePoint > 0xffff ? 2 : 1) };
}

/** `at`, or one before when it would cut a surrogate pair (an emoji) in two and show half of it as U+FFFD. */
function characterBoundary(text: string, at: number): number {
  const low = text.charCodeAt(at);
  const high = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? at - 1 : at;
}

/** The context around [start, end) of a text, cut at spaces where it can be, with `…` where cut. */
export function snippetOf(text: string, { start, end }: { start: number; end: number }): Pick<SearchMatch, 'snippet' | 'highlight'> {
  let from = characterBoundary(text, Math.max(0, start - CONTEXT_CHARS));
  let to = characterBoundary(text, Math.min(text.length, end + CONTEXT_CHARS));
  if (from > 0) {
    const space = text.indexOf(' ', from);
    if (space >= 0 && space < start) from = space + 1;
  }
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space >= end) to = space;
  }
  const before = from > 0 ? '…' : '';
  const snippet = `${before}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
  // Whitespace runs collapse in the snippet, so the highlight is found again rather than shifted.
  const matched = text.slice(start, end).replace(/\s+/g, ' ');
  const offset = snippet.indexOf(matched, before.length);
  return { snippet, highlight: { start: Math.max(offset, 0), end: Math.max(offset, 0) + matched.length } };
}

const matchIn = (span: LakeRow, field: string, text: string, at: { start: number; end: number }): SearchMatch => ({
  spanId: String(span['span_id']),
  spanName: String(span['name']),
  spanKind: String(span['kind']),
  field,
  ...snippetOf(text, at),
});

const wholeText = (span: LakeRow, field: string, text: string): SearchMatch => matchIn(span, field, text, { start: 0, end: text.length });

function textMatch(spans: readonly LakeRow[], term: TextTerm): SearchMatch | undefined {
  for (const span of spans) {
    for (const [field, column] of term.kind === 'error' ? ERROR_FIELDS : TEXT_FIELDS) {
      const text = span[column];
      if (typeof text !== 'string') continue;
      const at = locate(text, term);
      if (at) return matchIn(span, field, text, at);
    }
  }
  return undefined;
}

/** The first span a field term points at (the tool called, the model used, the attribute, the failure). */
function fieldMatch(spans: readonly LakeRow[], term: Exclude<Term, TextTerm>): SearchMatch | undefined {
  const value = 'value' in term && typeof term.value === 'string' ? keywordOf(term.value) : '';
  const same = (candidate: unknown, prefix: boolean) =>
    typeof candidate === 'string' && (prefix ? keywordOf(candidate).startsWith(value) : keywordOf(candidate) === value);
  for (const span of spans) {
    if (term.kind === 'keyword' && term.field === 'tool' && same(span['tool_name'], term.prefix)) return wholeText(span, 'toolName', String(span['tool_name']));
    if (term.kind === 'keyword' && term.field === 'model' && same(span['model'], term.prefix)) return wholeText(span, 'model', String(span['model']));
    if (term.kind === 'status' && term.value === 'error' && span['status'] === 'error') {
      const message = span['status_message'] ?? span['error_type'];
      return typeof message === 'string'
        ? wholeText(span, span['status_message'] ? 'statusMessage' : 'errorType', message)
        : wholeText(span, 'name', String(span['name']));
    }
    if (term.kind === 'attribute') {
      const attributes = typeof span['attributes'] === 'string' ? (JSON.parse(span['attributes']) as Record<string, never>) : {};
      const found = attributePairs(attributes).find(([key, v]) => keywordOf(key) === keywordOf(term.key) && same(v, term.prefix));
      if (found) return wholeText(span, `attributes.${found[0]}`, found[1]);
    }
  }
  return undefined;
}

/**
 * The match shown with a hit: where the first word or phrase of the query occurs (spans in start
 * order, and in each its name, tool, input, output, then error), else the span the first field term
 * points at; null when the query has neither (a search by trace-level fields only).
 */
export function matchOf(query: SearchQuery, spans: readonly LakeRow[]): SearchMatch | null {
  const positive = query.terms.filter((t) => !t.negated);
  for (const term of positive) {
    if (term.kind === 'text' || term.kind === 'error') {
      const found = textMatch(spans, term);
      if (found) return found;
    }
  }
  const isFieldTerm = (term: Term): term is Exclude<Term, TextTerm> => term.kind !== 'text' && term.kind !== 'error';
  for (const term of positive.filter(isFieldTerm)) {
    const found = fieldMatch(spans, term);
    if (found) return found;
  }
  return null;
}
