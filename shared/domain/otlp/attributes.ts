import { isStorableNumber, isTokenCount, type AttributeValue } from '../spans/model.ts';

export type Attributes = Record<string, AttributeValue>;

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

function first<T>(
  attributes: Attributes,
  keys: readonly string[],
  convert: (value: AttributeValue | undefined) => T | null,
): { key: string; value: T } | null {
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

  constructor(private readonly attributes: Attributes) {}

  string(...keys: string[]): string | null {
    return this.take(keys, asString);
  }

  number(...keys: string[]): number | null {
    return this.take(keys, asNumber);
  }

  tokenCount(...keys: string[]): number | null {
    return this.take(keys, asTokenCount);
  }

  cost(...keys: string[]): number | null {
    return this.take(keys, asCost);
  }

  text(...keys: string[]): string | null {
    return this.take(keys, asText);
  }

  /**
   * Messages flattened into indexed keys, as OpenLLMetry writes them (`gen_ai.prompt.0.role`,
   * `gen_ai.prompt.0.content`, …), rebuilt as a JSON array of objects in index order.
   */
  indexedText(prefix: string): string | null {
    const messages = new Map<number, [string, AttributeValue][]>();
    for (const [key, value] of Object.entries(this.attributes)) {
      const match = /^(\d+)\.(.+)$/.exec(key.startsWith(`${prefix}.`) ? key.slice(prefix.length + 1) : '');
      if (!match) continue;
      const index = Number(match[1]);
      const fields = messages.get(index) ?? [];
      fields.push([match[2]!, value]);
      messages.set(index, fields);
      this.moved.add(key);
    }
    if (messages.size === 0) return null;
    const ordered = [...messages].sort(([a], [b]) => a - b);
    return JSON.stringify(ordered.map(([, fields]) => Object.fromEntries(fields)));
  }

  /** The attributes whose values were not moved into canonical fields. */
  remaining(): Attributes {
    return Object.fromEntries(Object.entries(this.attributes).filter(([key]) => !this.moved.has(key)));
  }

  private take<T>(keys: readonly string[], convert: (value: AttributeValue | undefined) => T | null): T | null {
    const found = first(this.attributes, keys, convert);
    if (found === null) return null;
    this.moved.add(found.key);
    return found.value;
  }
}
