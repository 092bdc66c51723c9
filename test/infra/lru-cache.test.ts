import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import LRUCache from '../../infra/aws/lru-cache.ts';
import { seededRandom } from '../support/random.ts';

/** The original, as the SDK loads it (a CommonJS module whose types declare a default export). */
const MnemonistLRUCache = createRequire(import.meta.url)('mnemonist/lru-cache') as typeof import('mnemonist/lru-cache.js').default;

describe("the Lambda bundles' stand-in for mnemonist/lru-cache", () => {
  it('answers as mnemonist does over 20,000 seeded operations, evictions included', () => {
    const random = seededRandom(7);
    for (const capacity of [1, 3, 10]) {
      const ours = new LRUCache<string, number>(capacity);
      const theirs = new MnemonistLRUCache<string, number>(capacity);
      for (let i = 0; i < 20_000 / 3; i++) {
        const key = `k${random.below(capacity * 2 + 2)}`;
        const op = random.below(5);
        if (op === 0) {
          ours.set(key, i);
          theirs.set(key, i);
        } else if (op === 1) expect(ours.get(key), `get ${key}`).toBe(theirs.get(key));
        else if (op === 2) expect(ours.peek(key), `peek ${key}`).toBe(theirs.peek(key));
        else if (op === 3) expect(ours.has(key), `has ${key}`).toBe(theirs.has(key));
        else if (random.chance(0.01)) {
          ours.clear();
          theirs.clear();
        }
        expect(ours.size).toBe(theirs.size);
      }
    }
  });

  it('refuses a capacity that is not positive, as mnemonist does', () => {
    for (const capacity of [0, -1]) {
      expect(() => new LRUCache(capacity)).toThrow('capacity should be positive number');
      expect(() => new MnemonistLRUCache(capacity)).toThrow('capacity should be positive number');
    }
  });
});
