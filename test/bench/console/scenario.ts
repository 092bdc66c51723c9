import { runIsolated } from '../analytics/isolated.ts';
import type { Scenario } from '../scenario.ts';

export const consoleScenario: Scenario = {
  name: 'console',
  summary:
    "the console's traces page in Chromium (Playwright performance timings): JavaScript of its first load, gzipped, and the time until it is interactive with the tenant's traces in the store",
  flags: {
    traces: {
      default: 1_000_000,
      description:
        'traces of the tenant, seeded through the store layer over 30 days (BatchWriteItem of the items the service writes, as the analytics bench seeds them), CPU-bound in dynalite: the analytics bench wrote 4,900 summaries a second on a quiet machine, 400-1,000 when the shared machine is busy',
    },
    agents: { default: 5, description: 'agents of the tenant' },
    writers: { default: 8, description: 'BatchWriteItem calls in flight while seeding' },
    repetitions: { default: 15, description: 'cold page loads of the traces page timed (p50/p95 over these), after 2 not timed' },
  },
  run: (flags, progress) => runIsolated(new URL('./child.ts', import.meta.url), flags, progress),
};
