/** Random inputs for fuzz tests, reproducible from a seed. */
import type { Random } from './random.ts';

const STRINGS = [
  '',
  ' ',
  'a',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e-400',
  '1e20',
  '-0',
  '0x1F',
  'null',
  'true',
  '2026-13-45',
  '2026-01-01T00:00:00Z',
  '__proto__',
  'constructor',
  '💥🔥',
  'ａｂｃ',
  '\u0000\u0001',
  '<script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  'x'.repeat(300),
  'y'.repeat(70_000),
];
const KEYS = [
  'traceId',
  'spanId',
  'name',
  'startTime',
  'endTime',
  'spans',
  'signals',
  'logs',
  'signalName',
  'value',
  'level',
  'message',
  'timestamp',
  'kind',
  'status',
  'inputTokens',
  'cost',
  'attributes',
  '__proto__',
  'constructor',
  'prototype',
  'resourceSpans',
  'scopeSpans',
];
/** Numbers the store cannot hold (DynamoDB: 1e-130 to 1e126 in magnitude; the SDK: within ±2^53), and -0. */
export const OUT_OF_RANGE_NUMBERS = [1e20, 1e308, 2 ** 60, -(2 ** 60), 1e-300, -1e-300, 1e-131, 1e127, Number.MAX_VALUE, -0];
const NUMBERS = [0, -1, 1, 1.5, 2 ** 53, -(2 ** 53), Number.MIN_VALUE, 1_735_689_600_000, ...OUT_OF_RANGE_NUMBERS];

/** A random JSON value: wrong types, deep nesting, huge and odd strings, prototype-pollution keys. */
export function randomJson(r: Random, depth = 0): unknown {
  const choice = r.below(depth > 6 ? 4 : 7);
  switch (choice) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick(NUMBERS);
    case 3:
      return r.pick(STRINGS);
    case 4:
      return Array.from({ length: r.below(4) }, () => randomJson(r, depth + 1));
    case 5: {
      const object: Record<string, unknown> = {};
      for (let i = r.below(5); i > 0; i--)
        Object.defineProperty(object, r.pick(KEYS), { value: randomJson(r, depth + 1), enumerable: true, configurable: true, writable: true });
      return object;
    }
    default: {
      // deep nesting: just past what DynamoDB keeps (32), or far past it
      return nested(r.chance(0.5) ? 28 + r.below(12) : 50 + r.below(200), r.pick(STRINGS), r);
    }
  }
}

/** A valid-looking body with one random part replaced, which reaches deeper validation than noise does. */
export function mutate(r: Random, valid: Record<string, unknown>): unknown {
  const copy = structuredClone(valid) as Record<string, unknown>;
  const paths: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (node: unknown) => {
    if (node && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        paths.push([node as Record<string, unknown>, key]);
        walk((node as Record<string, unknown>)[key]);
      }
    }
  };
  walk(copy);
  const [parent, key] = r.pick(paths);
  if (r.next() < 0.2) delete (parent as Record<string, unknown>)[key];
  else (parent as Record<string | number, unknown>)[key] = randomJson(r);
  return copy;
}

/** `leaf` wrapped `depth` times in objects and arrays (alternating at random when `r` is given). */
export function nested(depth: number, leaf: unknown, r?: Random): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = (r ? r.next() < 0.5 : i % 2 === 0) ? [v] : { a: v };
  return v;
}

/**
 * The JSON text of `nested(depth, leaf)` without the alternation at random, made without recursion:
 * JSON.stringify itself runs out of stack a few thousand levels down.
 */
export function nestedJsonText(depth: number, leaf: unknown): string {
  const opening = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? '[' : '{"a":')).reverse();
  const closing = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? ']' : '}'));
  return `${opening.join('')}${JSON.stringify(leaf)}${closing.join('')}`;
}

export type JsonPath = (string | number)[];

/** The paths of a JSON value's leaves that `pick` selects (numbers, say), depth first. */
export function leafPaths(value: unknown, pick: (leaf: unknown) => boolean, path: JsonPath = []): JsonPath[] {
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => leafPaths(child, pick, [...path, Array.isArray(value) ? Number(key) : key]));
  }
  return pick(value) ? [path] : [];
}

/** A copy of `value` with the value at `path` replaced. */
export function withValueAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path.at(-1)!] = replacement;
  return copy;
}
