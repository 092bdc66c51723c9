import { runIsolated } from '../analytics/isolated.ts';
import type { Scenario } from '../scenario.ts';
import { TARGET_EXPORT_RSS_MB, TARGET_P95_MS } from './run-search.ts';

export const searchScenario: Scenario = {
  name: 'search',
  summary: `GET /search/traces over HTTP for words, phrases, field terms and mixes over one tenant's traces in the local lake (target p95 ≤ ${TARGET_P95_MS} ms), then an export of them all as JSON lines (rows/s, peak RSS of the whole service ≤ ${TARGET_EXPORT_RSS_MB} MB); the local lake is DuckDB with a 256 MB memory limit and 2 threads, about 1.7 KB of text and 7 spans a trace over 30 days, 50 hits a page with snippets`,
  flags: {
    traces: { default: 1_000_000, description: 'traces seeded into the lake (kept in .bench-data/ for the next run: seeding a million takes most of an hour)' },
    repetitions: { default: 3, description: 'measured rounds of every query (p50/p95 over all of them)' },
  },
  run: (flags, progress) => runIsolated(new URL('./child.ts', import.meta.url), flags, progress),
};
