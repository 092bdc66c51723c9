/** Random inputs for fuzz tests, reproducible from a seed. */
import type { Random } from './random.ts';

const STRINGS = ['', ' ', 'a', '0', '-1', '1e309', 'NaN', 'null', 'true', '2026-13-45', '2026-01-01T00:00:00Z', '__proto__', 'constructor', '💥🔥', 'ａｂｃ', '\u0000\u0001', '<script>', "' OR 1=1 --", '../../etc/passwd', '%00', 'x'.repeat(300), 'y'.repeat(70_000)];
const KEYS = ['traceId', 'spanId', 'name', 'startTime', 'endTime', 'spans', 'signals', 'logs', 'signalName', 'value', 'level', 'message', 'timestamp', 'kind', 'status', 'inputTokens', 'cost', 'attributes', '__proto__', 'constructor', 'prototype', 'resourceSpans', 'scopeSpans'];
const NUMBERS = [0, -1, 1, 1.5, -0, 2 ** 53, -(2 ** 53), 1e308, Number.MIN_VALUE, 1_735_689_600_000];

/** A random JSON value: wrong types, deep nesting, huge and odd strings, prototype-pollution keys. */
export function randomJson(r: Random, depth = 0): unknown {
  const choice = r.below(depth > 6 ? 4 : 7);
  switch (choice) {
    case 0: return null;
    case 1: return r.next() < 0.5;
    case 2: return r.pick(NUMBERS);
    case 3: return r.pick(STRINGS);
    case 4: return Array.from({ length: r.below(4) }, () => randomJson(r, depth + 1));
    case 5: {
      const object: Record<string, unknown> = {};
      for (let i = r.below(5); i > 0; i--) Object.defineProperty(object, r.pick(KEYS), { value: randomJson(r, depth + 1), enumerable: true, configurable: true, writable: true });
      return object;
    }
    default: {
      // deep nesting
      let v: unknown = r.pick(STRINGS);
      for (let i = 0; i < 50 + r.below(200); i++) v = r.next() < 0.5 ? [v] : { a: v };
      return v;
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
