/**
 * In-process turn-taking per key. The records of one worker batch run in parallel and often update
 * the same item (the tenant-wide rollup bucket, an agent's active alert); taking turns keeps them
 * from losing the same version race to each other. Other instances are still handled by each
 * repository's conditional write, retried with jittered backoff.
 */
const turns = new Map<string, Promise<unknown>>();

export function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = turns.get(key) ?? Promise.resolve();
  const mine = previous.then(work, work);
  const settled = mine.catch(() => undefined);
  turns.set(key, settled);
  void settled.then(() => {
    if (turns.get(key) === settled) turns.delete(key);
  });
  return mine;
}

const gathering = new Map<string, { items: unknown[]; done: Promise<unknown> }>();

/**
 * Turn-taking that gathers: work for a key that arrives while the key's turn is taken waits with
 * whatever else arrives meanwhile, and is done for all of them in one go when the turn comes (one
 * write instead of one each). Every caller of a group gets its outcome, failure included.
 */
export function inGatheredTurn<T, R>(key: string, item: T, work: (items: T[]) => Promise<R>): Promise<R> {
  const waiting = gathering.get(key);
  if (waiting) {
    waiting.items.push(item);
    return waiting.done as Promise<R>;
  }
  const items: T[] = [item];
  const done = inTurn(key, () => {
    gathering.delete(key);
    return work(items);
  });
  gathering.set(key, { items, done });
  return done;
}
