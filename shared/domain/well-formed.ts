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

/** The first `max` UTF-16 units of the text, one fewer when the cut would split a surrogate pair (an emoji) in two. */
export function textPrefix(text: string, max: number): string {
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** JSON text parsed, its strings well formed. Throws what JSON.parse throws. */
export function parseWellFormedJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return mayHoldSurrogateEscape(text) ? wellFormed(parsed) : parsed;
}
