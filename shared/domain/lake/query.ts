import { ValidationError } from '../errors.ts';
import { characterCount, textPrefix } from '../well-formed.ts';
import { MAX_QUERY_CHARS, MAX_TERMS } from './limits.ts';
import { keywordOf, wordsOf } from './text.ts';

/**
 * The search language of `GET /search/traces?q=…` (docs/search.md). A query is terms separated by
 * spaces, all of which a trace must match:
 *
 *   refund                   a word anywhere in the trace's text (names, inputs, outputs, tool arguments
 *                            and results, errors), whole word, any case or accent; `refund*` a prefix
 *   "payment declined"       a phrase: these words, in this order
 *   agent:support-bot        field terms: agent (name or id), model, tool (any case or accent), session,
 *   model:gpt-4o*              user (exactly) — whole value; a trailing * matches a prefix
 *   status:error             ok or error
 *   error:timeout            words or a "phrase" in the trace's error types and messages
 *   cost>0.5 duration>=2s    numbers: cost (US dollars), duration (ms, or with s, m, h), tokens (total; k, m)
 *   tokens<10k                 compared with > >= < <= or : (equal)
 *   attr.customer.tier:gold  a span attribute (nested keys joined with dots), whole value or prefix*
 *   -status:ok               a leading - excludes what the term matches
 *
 * Parsing only builds this description; the SQL builder (sql.ts) turns it into bound parameters.
 */
export const KEYWORD_FIELDS = ['agent', 'model', 'tool', 'session', 'user'] as const;
export type KeywordField = (typeof KEYWORD_FIELDS)[number];
export const NUMBER_FIELDS = ['cost', 'duration', 'tokens'] as const;
export type NumberField = (typeof NUMBER_FIELDS)[number];
export const COMPARISONS = ['>', '>=', '<', '<=', '='] as const;
export type Comparison = (typeof COMPARISONS)[number];

interface TermBase {
  negated: boolean;
}
/** Words (one word, or the words of a phrase in order) in the trace's text, or only in its errors. */
export interface TextTerm extends TermBase {
  kind: 'text' | 'error';
  words: string[];
  /** The last word may continue (`refund*`). */
  prefix: boolean;
  /** Written in quotes. */
  quoted: boolean;
}
export interface KeywordTerm extends TermBase {
  kind: 'keyword';
  field: KeywordField;
  /** As written: agent, model and tool compare folded (any case or accent), session and user ids exactly. */
  value: string;
  prefix: boolean;
}
export interface StatusTerm extends TermBase {
  kind: 'status';
  value: 'ok' | 'error';
}
export interface NumberTerm extends TermBase {
  kind: 'number';
  field: NumberField;
  comparison: Comparison;
  /** Dollars, milliseconds or tokens. */
  value: number;
}
export interface AttributeTerm extends TermBase {
  kind: 'attribute';
  /** Key and value as written; both compare folded. */
  key: string;
  value: string;
  prefix: boolean;
}
export type Term = TextTerm | KeywordTerm | StatusTerm | NumberTerm | AttributeTerm;

export interface SearchQuery {
  terms: Term[];
}

export { MAX_QUERY_CHARS, MAX_TERMS };

const MAX_PHRASE_WORDS = 32;
const MAX_WORD_CHARS = 200;
const MAX_NUMBER = 1e15;

const FIELDS_HELP = 'fields are agent, model, tool, session, user, status, error, attr.<key> (with :) and cost, duration, tokens (with > >= < <= :)';

/** A query that does not parse: the message names the term and where it starts in `q`. */
export class QuerySyntaxError extends ValidationError {
  constructor(
    readonly term: string,
    /** 1-based position of the term's first character in `q`. */
    readonly position: number,
    reason: string,
  ) {
    super(`q: ${term ? `"${term}" (at character ${position}): ` : ''}${reason}`);
  }
}

interface RawTerm {
  /** The term as written, for error messages. */
  source: string;
  position: number;
  negated: boolean;
  /** `field` of `field:value`, `field>value`… */
  field?: string;
  operator?: ':' | Comparison;
  value: string;
  quoted: boolean;
}

const FIELD_SYNTAX = /^(attr\.[^\s:"<>=]*|[a-z]+)(:|>=|<=|>|<)/i;

/** Splits `q` into terms, reading quotes (with \" and \\ escapes) and a leading - for negation. */
function scan(q: string): RawTerm[] {
  const terms: RawTerm[] = [];
  let i = 0;
  const readQuoted = (start: number): { text: string; end: number } => {
    let text = '';
    let j = start + 1;
    for (; j < q.length && q[j] !== '"'; j++) {
      if (q[j] === '\\' && j + 1 < q.length) j++;
      text += q[j];
    }
    if (j >= q.length) throw new QuerySyntaxError(textPrefix(q.slice(start), 40), start + 1, 'a quote is not closed');
    return { text, end: j + 1 };
  };
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i++;
      continue;
    }
    const start = i;
    const negated = q[i] === '-' && i + 1 < q.length && !/\s/.test(q[i + 1]!);
    if (negated) i++;
    let field: string | undefined;
    let operator: RawTerm['operator'];
    const fieldMatch = q[i] === '"' ? null : FIELD_SYNTAX.exec(q.slice(i));
    if (fieldMatch) {
      field = fieldMatch[1]!;
      operator = fieldMatch[2]! === ':' ? ':' : (fieldMatch[2]! as Comparison);
      i += fieldMatch[0].length;
    }
    let value: string;
    let quoted = false;
    if (q[i] === '"') {
      const read = readQuoted(i);
      value = read.text;
      quoted = true;
      i = read.end;
      if (i < q.length && !/\s/.test(q[i]!)) throw new QuerySyntaxError(q.slice(start, i + 1), start + 1, 'put a space after a closing quote');
    } else {
      let end = i;
      while (end < q.length && !/\s/.test(q[end]!)) {
        if (q[end] === '"') throw new QuerySyntaxError(q.slice(start, end + 1), start + 1, 'a quote may only start a term or a value');
        end++;
      }
      value = q.slice(i, end);
      i = end;
    }
    terms.push({ source: q.slice(start, i), position: start + 1, negated, ...(field !== undefined && { field, operator }), value, quoted });
  }
  return terms;
}

/** Words of a text or error value; `*` at the end of an unquoted value asks for a prefix. */
function textTerm(kind: 'text' | 'error', raw: RawTerm): TextTerm {
  const fail = (reason: string) => new QuerySyntaxError(raw.source, raw.position, reason);
  const prefix = !raw.quoted && raw.value.endsWith('*');
  const words = wordsOf(prefix ? raw.value.slice(0, -1) : raw.value);
  if (words.length === 0) throw fail(kind === 'error' ? 'error: needs words to look for, e.g. error:timeout' : 'has no letters or digits to search for');
  if (words.length > MAX_PHRASE_WORDS) throw fail(`a phrase may have at most ${MAX_PHRASE_WORDS} words`);
  if (words.some((w) => w.length > MAX_WORD_CHARS)) throw fail(`a word may have at most ${MAX_WORD_CHARS} characters`);
  return { kind, words, prefix, quoted: raw.quoted, negated: raw.negated };
}

const DURATION_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const TOKEN_UNITS: Record<string, number> = { '': 1, k: 1000, m: 1_000_000 };
const NUMBER_SYNTAX = /^(\d+(?:\.\d+)?|\.\d+)([a-z]*)$/i;

function numberTerm(field: NumberField, raw: RawTerm): NumberTerm {
  const fail = (reason: string) => new QuerySyntaxError(raw.source, raw.position, reason);
  const example = { cost: 'cost>0.5', duration: 'duration>2s', tokens: 'tokens>10k' }[field];
  const text = field === 'cost' ? raw.value.replace(/^\$/, '') : raw.value;
  const match = raw.quoted ? null : NUMBER_SYNTAX.exec(text);
  const units = field === 'duration' ? DURATION_UNITS : field === 'tokens' ? TOKEN_UNITS : { '': 1 };
  const unit = match?.[2]?.toLowerCase() ?? '';
  if (!match || !(unit in units))
    throw fail(
      `${field} needs a number${
        field === 'cost'
          ? ''
          : ` (units: ${Object.keys(units)
              .filter((u) => u)
              .join(', ')})`
      }, e.g. ${example}`,
    );
  const value = Number(match[1]) * units[unit]!;
  if (!Number.isFinite(value) || value > MAX_NUMBER) throw fail(`${field} must be at most ${MAX_NUMBER}`);
  return { kind: 'number', field, comparison: raw.operator === ':' ? '=' : (raw.operator as Comparison), value, negated: raw.negated };
}

/** A field term's value as written (without a trailing * for a prefix); the SQL builder folds names, not ids. */
function termValue(raw: RawTerm, field: string): { value: string; prefix: boolean } {
  const prefix = !raw.quoted && raw.value.endsWith('*');
  const value = (prefix ? raw.value.slice(0, -1) : raw.value).trim();
  if (keywordOf(value) === '')
    throw new QuerySyntaxError(raw.source, raw.position, `${field}: needs a value, e.g. ${field}:${field === 'agent' ? 'support-bot' : 'value'}`);
  if (value.length > MAX_WORD_CHARS) throw new QuerySyntaxError(raw.source, raw.position, `a value may have at most ${MAX_WORD_CHARS} characters`);
  return { value, prefix };
}

function fieldTerm(raw: RawTerm): Term {
  const field = raw.field!.toLowerCase();
  const fail = (reason: string) => new QuerySyntaxError(raw.source, raw.position, reason);
  if ((NUMBER_FIELDS as readonly string[]).includes(field)) return numberTerm(field as NumberField, raw);
  if (raw.operator !== ':') throw fail(`${field} takes ":" (only cost, duration and tokens compare with ${raw.operator})`);
  if (field === 'status') {
    const value = raw.value.toLowerCase();
    if (value !== 'ok' && value !== 'error') throw fail('status is ok or error');
    return { kind: 'status', value, negated: raw.negated };
  }
  if (field === 'error') return textTerm('error', raw);
  if ((KEYWORD_FIELDS as readonly string[]).includes(field))
    return { kind: 'keyword', field: field as KeywordField, ...termValue(raw, field), negated: raw.negated };
  if (field.startsWith('attr.')) {
    const key = raw.field!.slice('attr.'.length);
    if (keywordOf(key) === '' || key.length > MAX_WORD_CHARS) throw fail('attr. needs a key, e.g. attr.customer.tier:gold');
    return { kind: 'attribute', key, ...termValue(raw, raw.field!), negated: raw.negated };
  }
  throw fail(`unknown field "${raw.field}"; ${FIELDS_HELP}; put the term in quotes to search for it as text`);
}

/** Parses `q`; a QuerySyntaxError (400) names the first term that does not parse. */
export function parseSearchQuery(q: string): SearchQuery {
  if (characterCount(q) > MAX_QUERY_CHARS) throw new QuerySyntaxError('', 1, `must be at most ${MAX_QUERY_CHARS} characters`);
  const raw = scan(q);
  if (raw.length > MAX_TERMS) throw new QuerySyntaxError(raw[MAX_TERMS]!.source, raw[MAX_TERMS]!.position, `a query may have at most ${MAX_TERMS} terms`);
  return { terms: raw.map((term) => (term.field === undefined ? textTerm('text', term) : fieldTerm(term))) };
}

const quote = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
/** A value as a term writes it: bare when it reads back the same, else quoted. */
const written = (value: string) => (/^[^\s"*]+$/.test(value) && !value.startsWith('-') ? value : quote(value));

function formatTerm(term: Term): string {
  const sign = term.negated ? '-' : '';
  switch (term.kind) {
    case 'text':
    case 'error': {
      const text = term.words.join(' ');
      const body = term.words.length > 1 || term.quoted ? (term.prefix ? `${text.replace(/ /g, '.')}*` : quote(text)) : `${text}${term.prefix ? '*' : ''}`;
      return `${sign}${term.kind === 'error' ? 'error:' : ''}${body}`;
    }
    case 'keyword':
      return `${sign}${term.field}:${term.prefix ? `${written(term.value)}*` : written(term.value)}`;
    case 'status':
      return `${sign}status:${term.value}`;
    case 'number':
      return `${sign}${term.field}${term.comparison === '=' ? ':' : term.comparison}${term.value}`;
    case 'attribute':
      return `${sign}attr.${term.key}:${term.prefix ? `${written(term.value)}*` : written(term.value)}`;
  }
}

/** The query written back in the language: parsing it gives the same terms (what `ask` shows). */
export const formatSearchQuery = (query: SearchQuery): string => query.terms.map(formatTerm).join(' ');
