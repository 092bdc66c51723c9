import type { Scenario } from '../scenario.ts';
import { runIsolated } from './isolated.ts';
import { SEEDED_DAYS } from './run-analytics.ts';

export const analyticsScenario: Scenario = {
  name: 'analytics',
  summary: `the six analytics endpoints over HTTP for 24 h, 7 d and 30 d of one tenant's traces (seeded through the store layer), against scanning the trace summaries`,
  flags: {
    traces: { default: 100_000, description: `traces seeded over the last ${SEEDED_DAYS} days (the issue's figure, 1000000, takes about 20 minutes)` },
    agents: { default: 5, description: 'agents of the tenant, all equally busy (a Starter plan allows 25)' },
    writers: { default: 8, description: 'BatchWriteItem calls in flight while seeding' },
    'warmup-rounds': { default: 3, min: 0, description: 'rounds of every endpoint and range before measuring (not measured)' },
    repetitions: { default: 30, description: 'measured requests per endpoint and range (p50/p95 over these)' },
    'scan-repetitions': { default: 3, description: 'scans of the trace summaries per range (the baseline is their median)' },
  },
  run: (flags, progress) => runIsolated(new URL('./child.ts', import.meta.url), flags, progress),
};
