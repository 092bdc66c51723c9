import { runIsolated } from '../analytics/isolated.ts';
import type { Scenario } from '../scenario.ts';
import { consoleData, MAX_CACHE_AGE_DAYS } from './data.ts';
import type { MeasureRequest } from './run-console.ts';

export const consoleScenario: Scenario = {
  name: 'console',
  summary:
    "the console's traces page in Chromium (Playwright performance timings): JavaScript of its first load, gzipped, and the time until it is interactive, for a tenant with few traces and one with many in the same table (on disk, seeded as the reads bench seeds, kept under .bench-data/)",
  flags: {
    'small-traces': { default: 1000, description: 'traces of the first tenant' },
    traces: {
      default: 1_000_000,
      description: `traces of the second tenant (a million seeded in 14 minutes on a quiet 2-core machine, then reused from .bench-data/console/ for ${MAX_CACHE_AGE_DAYS} days while the seeding's sources and the store's list layout stay the same)`,
    },
    agents: { default: 200, description: 'agents of each tenant' },
    writers: { default: 12, description: 'BatchWriteItem calls in flight while seeding' },
    repetitions: { default: 15, description: 'cold page loads of the traces page timed per tenant (p50/p95 over these), after 2 not timed' },
  },
  run: async (flags, progress) => {
    const sizes = [flags['small-traces']!, flags['traces']!];
    const data = await consoleData({ sizes, agents: flags['agents']!, writers: flags['writers']! }, progress);
    try {
      const { discard, ...seeded } = data;
      return await runIsolated<MeasureRequest>(new URL('./child.ts', import.meta.url), { flags, data: seeded }, progress);
    } finally {
      await data.discard();
    }
  },
};
