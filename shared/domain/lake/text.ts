/**
 * How the lake reads text. Everything searchable is folded here, in TypeScript, when it is written and
 * when a query is parsed, so both engines only ever compare folded text with `contains`: no SQL function
 * of either dialect decides what a word is.
 *
 * Folding: lower case, accents removed (NFKD without combining marks), and every run of characters
 * that are not letters or digits turned into one space, with a space at each end. A word then matches
 * as ` word ` (whole word), a word prefix as ` wor`, and a phrase as ` several words `.
 */

const MARKS = /\p{M}/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

const fold = (text: string): string => text.toLowerCase().normalize('NFKD').replace(MARKS, '');

/** ` folded words ` — a single space for text without words. */
export function foldText(text: string): string {
  const words = fold(text).replace(NOT_WORD, ' ').trim();
  return words === '' ? ' ' : ` ${words} `;
}

/** The words of any text, folded. */
export const wordsOf = (text: string): string[] => wordsOfFolded(foldText(text));
/** The words of text `foldText` has folded. */
export const wordsOfFolded = (folded: string): string[] => (folded === ' ' ? [] : folded.slice(1, -1).split(' '));

/** What stands between two fields in a trace's searchable text: folding never makes it, so no word or phrase holds it. */
export const FIELD_BOUNDARY = '|';

export interface FoldedWithOrigins {
  /** Exactly `foldText(text)`. */
  text: string;
  /** For each character of `text`, the index in the original it came from (the separators' too). */
  origins: number[];
}

/**
 * `foldText` keeping where each folded character came from, so a match found in folded text can be
 * shown in the original (the snippet of a search hit).
 */
export function foldWithOrigins(text: string): FoldedWithOrigins {
  let folded = ' ';
  const origins = [0];
  let index = 0;
  for (const char of text) {
    for (const c of fold(char)) {
      if (WORD_CHAR.test(c)) {
        folded += c;
        origins.push(index);
      } else if (!folded.endsWith(' ')) {
        folded += ' ';
        origins.push(index);
      }
    }
    index += char.length;
  }
  if (folded === ' ') return { text: ' ', origins: [0] };
  if (!folded.endsWith(' ')) {
    folded += ' ';
    origins.push(text.length);
  }
  return { text: folded, origins };
}

/**
 * A value in a keyword list (models, tools, attributes): lower-cased, with the list's separator (a
 * newline) and other control characters turned into spaces. Lists are stored as `\nvalue\nvalue\n`,
 * so `\nvalue\n` matches a whole value and `\nval` a prefix.
 */
export const keywordOf = (value: string): string => fold(value).replace(CONTROL_CHARACTERS, ' ').trim();
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a keyword leaves out.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

export const KEYWORD_SEPARATOR = '\n';

export const keywordList = (values: Iterable<string>): string => {
  const distinct = [...new Set([...values].map(keywordOf).filter((v) => v !== ''))];
  return distinct.length === 0 ? KEYWORD_SEPARATOR : `${KEYWORD_SEPARATOR}${distinct.join(KEYWORD_SEPARATOR)}${KEYWORD_SEPARATOR}`;
};

/**
 * The trace signature: a blocked Bloom filter over the trace's words (and its attribute pairs), kept in
 * SIGNATURE_COLUMNS whole-number columns of SIGNATURE_BITS bits each. A word sets BITS_PER_WORD bits of
 * one column, so a query for it reads that one column of every trace, a few bytes each, and only the
 * traces whose bits are all set go on to have their text compared; without it every query would read
 * all the text (a million traces: 2.5 GB and 8–20 s in DuckDB on this machine). 53 bits per column keep
 * every value an exact JavaScript number and a positive BIGINT literal in either dialect.
 * With 150 distinct words a trace sets about 9 bits per column; a word it lacks then passes by
 * chance about once in 600 traces (300 words: once in 80), and only those have their text read.
 */
export const SIGNATURE_COLUMNS = 64;
export const SIGNATURE_BITS = 53;
const BITS_PER_WORD = 4;

/** `sig_00` … `sig_63`: the only column names a query derives from its input, chosen from this fixed list. */
export const SIGNATURE_COLUMN_NAMES: readonly string[] = Array.from({ length: SIGNATURE_COLUMNS }, (_, i) => `sig_${String(i).padStart(2, '0')}`);

/** FNV-1a over UTF-16 code units, with a seed: two seeds give two independent 32-bit hashes. */
function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // A final avalanche so that nearby words spread over columns and bits.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** The column a word's bits live in and the bits it sets there. */
export interface SignatureSlot {
  column: number;
  mask: number;
}

const TWO_32 = 2 ** 32;

/**
 * A word's slot, computed each time it is needed: 132 ns for a word of 6 characters, 235 for 20, 314
 * for 32. A map of the words seen, which this once kept, answered in 99 ns (6 characters) and 247
 * (20) while it held 1,000 words, but in 353 and 539 once it held 100,000, and held 22 MB of heap at
 * 200,000 (docs/local-runtime.md, "The search signature's word cache", its last point).
 */
export function signatureSlot(word: string): SignatureSlot {
  const column = fnv1a(word, 0) % SIGNATURE_COLUMNS;
  let state = fnv1a(word, 0x9e3779b9) || 1;
  // The mask's low 32 bits and the 21 above them, as numbers: bit operations on BigInts cost ten times more.
  let low = 0;
  let high = 0;
  for (let set = 0; set < BITS_PER_WORD; ) {
    // xorshift32: the next bit position; a position drawn twice is drawn again.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const bit = state % SIGNATURE_BITS;
    const flag = bit < 32 ? (1 << bit) >>> 0 : 1 << (bit - 32);
    const half = bit < 32 ? low : high;
    if ((half & flag) !== 0) continue;
    if (bit < 32) low = (low | flag) >>> 0;
    else high |= flag;
    set++;
  }
  return { column, mask: high * TWO_32 + low };
}

/** The signature of a set of words: one number per column. */
export function signatureOf(words: Iterable<string>): number[] {
  const low = new Array<number>(SIGNATURE_COLUMNS).fill(0);
  const high = new Array<number>(SIGNATURE_COLUMNS).fill(0);
  for (const word of words) {
    const { column, mask } = signatureSlot(word);
    low[column] = (low[column]! | (mask % TWO_32)) >>> 0;
    high[column] = high[column]! | Math.floor(mask / TWO_32);
  }
  return low.map((l, i) => high[i]! * TWO_32 + l);
}

/** The signature word of an attribute pair (`attr.<key>:<value>`), distinct from any text word. */
export const attributeWord = (key: string, value: string): string => `\u0001${keywordOf(key)}=${keywordOf(value)}`;
