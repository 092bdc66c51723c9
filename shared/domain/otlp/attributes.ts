import { type AttributeValue, isStorableNumber, isTokenCount } from '../spans/model.ts';
import { parseWellFormedJson } from '../well-formed.ts';

export type Attributes = Record<string, AttributeValue>;

/** One attribute key, or several in order of precedence. */
type Keys = string | readonly string[];

/** A non-empty string; numbers and booleans as their text (ids are sometimes sent as integers). */
function asString(value: AttributeValue | undefined): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** A finite number, also from a numeric string (some SDKs send counts as strings). */
function asNumber(value: AttributeValue | undefined): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

/** A token count as native spans require it (whole, not negative); anything else stays an attribute. */
function asTokenCount(value: AttributeValue | undefined): number | null {
  const number = asNumber(value);
  return number !== null && isTokenCount(number) ? number : null;
}

/** A cost as native spans require it (storable, not negative); anything else stays an attribute. */
function asCost(value: AttributeValue | undefined): number | null {
  const number = asNumber(value);
  return number !== null && number >= 0 && isStorableNumber(number) ? number : null;
}

/** Content as text: strings as sent, structured values (messages, documents) as JSON. */
export function asText(value: AttributeValue | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function first<T>(attributes: Attributes, keys: readonly string[], convert: (value: AttributeValue | undefined) => T | null): { key: string; value: T } | null {
  for (const key of keys) {
    const value = Object.hasOwn(attributes, key) ? convert(attributes[key]) : null;
    if (value !== null) return { key, value };
  }
  return null;
}

/** The first of `keys` holding a usable string. */
export function firstString(attributes: Attributes, ...keys: string[]): string | null {
  return first(attributes, keys, asString)?.value ?? null;
}

/**
 * Reads canonical fields out of an attribute map and remembers which keys supplied a value, so that
 * `remaining()` keeps everything else (a `gen_ai.request.model` overridden by the response model stays).
 */
export class AttributeReader {
  private readonly moved = new Set<string>();
  /** The keys, listed once: the dialects' attribute families are looked for on every span. */
  private keyList: readonly string[] | undefined;

  constructor(private readonly attributes: Attributes) {}

  // Each reader takes one key or a list, the first holding a usable value winning: the lists are
  // module constants, read on every span without building a list per call.

  string(keys: Keys): string | null {
    return this.take(keys, asString);
  }

  number(keys: Keys): number | null {
    return this.take(keys, asNumber);
  }

  tokenCount(keys: Keys): number | null {
    return this.take(keys, asTokenCount);
  }

  cost(keys: Keys): number | null {
    return this.take(keys, asCost);
  }

  text(keys: Keys): string | null {
    return this.take(keys, asText);
  }

  keys(): readonly string[] {
    return (this.keyList ??= Object.keys(this.attributes));
  }

  /** The value under `key` as sent, without moving it (to tell dialects apart). */
  peek(key: string): AttributeValue | undefined {
    return Object.hasOwn(this.attributes, key) ? this.attributes[key] : undefined;
  }

  /** The first of `keys` holding a usable token count, without moving it. */
  peekTokenCount(keys: Keys): number | null {
    return typeof keys === 'string' ? asTokenCount(this.peek(keys)) : (first(this.attributes, keys, asTokenCount)?.value ?? null);
  }

  /** The first of `keys` holding a usable string, without moving it. */
  peekString(keys: Keys): string | null {
    return typeof keys === 'string' ? asString(this.peek(keys)) : (first(this.attributes, keys, asString)?.value ?? null);
  }

  /** Content: the first of `keys` holding a value, JSON text parsed into the structure it encodes. */
  json(keys: Keys): AttributeValue | null {
    return this.take(keys, asParsedJson);
  }

  /** Moves `keys` out of the attributes: their content was taken from a sibling key of the same dialect. */
  discard(keys: Keys): void {
    for (const key of typeof keys === 'string' ? [keys] : keys) if (Object.hasOwn(this.attributes, key)) this.moved.add(key);
  }

  /** Every `<prefix>.<name>` attribute not moved yet, as `{ name: value }` (moved now); null when there is none. */
  prefixed(prefix: string): Attributes | null {
    let found: Attributes | null = null;
    const start = `${prefix}.`;
    for (const key of this.keys()) {
      if (!key.startsWith(start) || key.length === start.length || this.moved.has(key)) continue;
      found ??= {};
      // defineProperty: a name such as "__proto__" stays an ordinary key.
      Object.defineProperty(found, key.slice(start.length), { value: this.attributes[key], enumerable: true, writable: true, configurable: true });
      this.moved.add(key);
    }
    return found;
  }

  /**
   * A list flattened into indexed keys (`gen_ai.prompt.0.role`, `llm.input_messages.1.message.tool_calls.0.tool_call.id`, …),
   * rebuilt in index order: numeric segments become array positions, the others object keys.
   */
  indexedList(prefix: string): AttributeValue[] | null {
    const entries: [string[], AttributeValue][] = [];
    const start = `${prefix}.`;
    for (const key of this.keys()) {
      if (!key.startsWith(start)) continue;
      const path = key.slice(start.length).split('.');
      if (!INDEX.test(path[0]!) || path.length < 2) continue;
      const value = this.attributes[key]!;
      entries.push([path, value]);
      this.moved.add(key);
    }
    if (entries.length === 0) return null;
    const root: AttributeValue[] = [];
    for (const [path, value] of entries) setPath(root, path, value);
    return root.filter((item) => item !== undefined && item !== null);
  }

  /** The attributes whose values were not moved into canonical fields. */
  remaining(): Attributes {
    return Object.fromEntries(Object.entries(this.attributes).filter(([key]) => !this.moved.has(key)));
  }

  private take<T>(keys: Keys, convert: (value: AttributeValue | undefined) => T | null): T | null {
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const value = Object.hasOwn(this.attributes, key) ? convert(this.attributes[key]) : null;
      if (value !== null) {
        this.moved.add(key);
        return value;
      }
    }
    return null;
  }
}

const INDEX = /^\d{1,4}$/;

/** Sets `value` at `path` inside `container`, creating arrays for numeric segments and objects for the others. */
function setPath(container: AttributeValue[] | { [key: string]: AttributeValue }, path: string[], value: AttributeValue): void {
  let node: AttributeValue[] | { [key: string]: AttributeValue } = container;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i]!;
    const nextIsIndex = INDEX.test(path[i + 1]!);
    const current: AttributeValue | undefined = Array.isArray(node) ? node[Number(segment)] : Object.hasOwn(node, segment) ? node[segment] : undefined;
    const child = current !== null && typeof current === 'object' && Array.isArray(current) === nextIsIndex ? current : nextIsIndex ? [] : {};
    if (Array.isArray(node)) node[Number(segment)] = child;
    else Object.defineProperty(node, segment, { value: child, enumerable: true, writable: true, configurable: true });
    node = child as AttributeValue[] | { [key: string]: AttributeValue };
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) node[Number(last)] = value;
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
}

const asParsedJson = (value: AttributeValue | undefined): AttributeValue | null =>
  value === undefined || value === null || value === '' ? null : parsedJson(value);

/** JSON text (an object, an array or a quoted string) as the value it encodes; anything else as it is. */
export function parsedJson(value: AttributeValue): AttributeValue {
  if (typeof value !== 'string' || !/^\s*[[{"]/.test(value)) return value;
  try {
    return parseWellFormedJson(value) as AttributeValue;
  } catch {
    return value;
  }
}
