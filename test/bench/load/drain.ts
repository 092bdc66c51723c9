import type { TestService } from '../../support/service.ts';
import { BenchFailure } from '../scenario.ts';
import { stopwatch } from '../stats.ts';

const FAILURE_CHECK_MS = 100;

/**
 * Waits until every queue is empty, i.e. everything accepted is persisted, and answers how many
 * seconds that took. Fails as soon as `failures()` names a failed queue message (its retry would only
 * come after the visibility timeout), or after `timeoutMs`.
 */
export async function drainOrFail(service: Pick<TestService, 'drainQueues'>, failures: () => readonly string[], timeoutMs: number): Promise<number> {
  const elapsed = stopwatch();
  let watch: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    watch = setInterval(() => {
      const lines = failures();
      if (lines.length > 0) reject(new Error(`${lines.length} queue message(s) failed, e.g. ${lines[0]} (LOG_LEVEL=ERROR shows the worker's error)`));
    }, FAILURE_CHECK_MS);
  });
  try {
    await Promise.race([service.drainQueues(timeoutMs), failed]);
    return elapsed().seconds;
  } catch (err) {
    throw new BenchFailure(`accepted telemetry was not persisted: ${(err as Error).message}`);
  } finally {
    clearInterval(watch);
  }
}
