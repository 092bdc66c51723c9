import { runIsolated } from '../analytics/isolated.ts';
import type { Scenario } from '../scenario.ts';
import { TARGET_EXPORT_RSS_MB, TARGET_P95_MS } from './figures.ts';

export const searchScenario: Scenario = {
  name: 'search',
  summary: `GET /search/traces over HTTP for words, phrases, field terms and mixes over one tenant's traces in the local lake, at two sizes in one process (100,000 and 1,000,000 traces by default; target p95 ≤ ${TARGET_P95_MS} ms), then at each size an export of them all as JSON lines (rows/s, peak RSS of the whole service ≤ ${TARGET_EXPORT_RSS_MB} MB); the lakes are seeded once into .bench-data/ by DuckDB bulk loads of the lake's own rows`,
  flags: {
    'small-traces': { default: 100_000, description: 'traces of the smaller lake, measured first' },
    traces: {
      default: 1_000_000,
      description:
        'traces of the larger lake (seeded once into .bench-data/ and reused: 100,000 took 80 s on a quiet machine, a million 55 minutes under a load average of 10 to 15)',
    },
    repetitions: { default: 3, description: 'measured rounds of every query (p50/p95 over all of them)' },
  },
  run: (flags, progress) => runIsolated(new URL('./child.ts', import.meta.url), flags, progress),
};
