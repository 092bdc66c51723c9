import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { quantile } from '#shared/domain/spans/views.ts';

/** The nearest-rank percentile (q in 0–1) of the values, in any order. */
export const percentile = (values: readonly number[], q: number): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    q,
  )!;
export const median = (values: readonly number[]): number => percentile(values, 0.5);

export interface Elapsed {
  /** Wall-clock seconds. */
  seconds: number;
  /** CPU seconds of this whole process, every thread: the local service runs in it, all of it. */
  cpuSeconds: number;
}

/** Starts measuring now; each call of the answer says how much time has gone by since. */
export function stopwatch(): () => Elapsed {
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpuStart);
    return { seconds: (performance.now() - wallStart) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  };
}

export const round = (value: number, decimals = 0): number => Number(value.toFixed(decimals));

// `npm run bench` cannot pass --expose-gc to node; turning the flag on now and fetching gc() from a
// fresh context is the usual workaround.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A full garbage collection now, so that the garbage of one phase is not collected on the next one's clock. */
export const collectGarbage = (): void => gc();
