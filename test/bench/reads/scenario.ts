import { runIsolated } from '../analytics/isolated.ts';
import type { Scenario } from '../scenario.ts';
import { SEEDED_DAYS } from './tenant.ts';

export const readsScenario: Scenario = {
  name: 'reads',
  summary: `every list endpoint (traces with each filter, deep pages, sessions, logs, signals, alerts, agents) over HTTP at two sizes of one table: a tenant with 1,000 traces, then one with 1,000,000 (${SEEDED_DAYS} days, seeded through the store layer); p50/p95 and items read`,
  flags: {
    'small-traces': { default: 1000, description: 'traces of the first tenant' },
    traces: {
      default: 1_000_000,
      description:
        'traces of the second tenant (measured: 150,000 seeded in 3 minutes on a quiet 2-core machine; in memory, 465,000 held 7.3 GB and seeding slowed below 200 a second as the heap grew, so run a million alone, and consider --on-disk 1)',
    },
    agents: { default: 200, description: 'agents of each tenant' },
    writers: { default: 12, description: 'BatchWriteItem calls in flight while seeding' },
    'warmup-rounds': { default: 2, min: 0, description: 'rounds of every endpoint before measuring (not measured)' },
    repetitions: {
      default: 100,
      description:
        'measured requests per endpoint and size (p50/p95 over these; the nearest-rank p95 of 20 is the second slowest, one hiccup of the machine, so the default is 100)',
    },
    'on-disk': { default: 0, min: 0, max: 1, description: '1: the table on disk (LevelDB in a temporary directory) instead of in memory' },
  },
  run: (flags, progress) => runIsolated(new URL('./child.ts', import.meta.url), flags, progress),
};
