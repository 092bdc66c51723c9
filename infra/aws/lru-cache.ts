/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (an esbuild alias). Its one user there is
 * the SDK's endpoint-discovery cache (`@aws-sdk/endpoint-cache`), which every DynamoDB client makes,
 * though DynamoDB discovers no endpoints unless configured to; mnemonist's typed-array LRU and the
 * iterator helpers it brings took 7 KB of every function. This is the part of its API that cache uses,
 * over a Map kept in order of use (least recent first).
 */
export default class LRUCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (typeof capacity !== 'number' || capacity <= 0) throw new Error('mnemonist/lru-cache: capacity should be positive number.');
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets the value as the most recently used, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  clear(): void {
    this.entries.clear();
  }
}
