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

export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));
