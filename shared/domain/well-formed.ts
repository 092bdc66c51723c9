import { util } from 'zod/v4/core';

/**
 * Text as every store and engine downstream takes it. A lone UTF-16 surrogate, which JSON's `\ud800`
 * escape can carry into a string, is not text:
 * DynamoDB stores strings as UTF-8, and the lake's JSON and Parquet writers refuse it, so a span that
 * held one was accepted and then failed every export that covered it. Each becomes U+FFFD, as an
 * invalid byte sequence already does when a JSON body is decoded from UTF-8 (a protobuf body with
 * invalid UTF-8 is refused). Cutting text must not make one either (`textPrefix`).
 */

/** Whether JSON text may hold a lone surrogate: only an escape of one can (a cheap test before a walk). */
const mayHoldSurrogateEscape = (json: string): boolean => /\\u[dD][89a-fA-F]/.test(json);

/**
 * The value with every string in it, object keys included, well formed. Parsed JSON is walked in
 * place, without recursion, so no depth a body may have overflows the stack.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T;
  const pending: unknown[] = [value];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') node[i] = item.toWellFormed();
        else if (typeof item === 'object' && item !== null) pending.push(item);
      }
    } else if (typeof node === 'object' && node !== null && !ArrayBuffer.isView(node)) {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const fixedKey = key.toWellFormed();
        if (typeof item === 'object' && item !== null) pending.push(item);
        const fixed = typeof item === 'string' ? item.toWellFormed() : item;
        if (fixedKey !== key) {
          delete record[key];
          Object.defineProperty(record, fixedKey, { value: fixed, enumerable: true, writable: true, configurable: true });
        } else if (fixed !== item) record[key] = fixed;
      }
    }
  }
  return value;
}

/**
 * How many characters the text holds, counted as Unicode code points (an emoji is one), the unit
 * every length limit of the schemas counts in: zod's own count, so a cut never disagrees with them.
 */
export const characterCount = (text: string): number => util.codePointLength(text);

const isSurrogatePairAt = (text: string, index: number): boolean =>
  (text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;

/** The first `max` characters (code points, see `characterCount`) of the text: a surrogate pair (an emoji) is never split in two. */
export function textPrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  let units = 0;
  for (let kept = 0; kept < max && units < text.length; kept++) units += isSurrogatePairAt(text, units) ? 2 : 1;
  return text.slice(0, units);
}

/** JSON text parsed, its strings well formed. Throws what JSON.parse throws. */
export function parseWellFormedJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return mayHoldSurrogateEscape(text) ? wellFormed(parsed) : parsed;
}
