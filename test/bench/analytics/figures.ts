import type { Figure } from '../scenario.ts';
import { median, percentile, round } from '../stats.ts';
import type { RangeResult } from './compare.ts';
import type { Seeded } from './seed.ts';

/** The target: every endpoint's p95 at most this over the 30-day range. */
const TARGET_P95_MS = 100;
const TARGET_RANGE = '30d';
const SHOWN_FAILURES = 10;

export interface AnalyticsRun {
  seeded: Seeded;
  compactionMismatches: string[];
  /** One sweep of expired items over the whole table, which the local runtime runs every minute. */
  ttlSweepSeconds: number;
  ranges: RangeResult[];
}

const ms = (seconds: number) => round(seconds * 1000, 1);

export function figures(run: AnalyticsRun): Figure[] {
  return [
    ...seedingFigures(run.seeded),
    ...driftFigures(run),
    {
      key: 'ttlSweepSeconds',
      label: 'one TTL sweep of the table (every minute under npm start, same thread; off in benches)',
      value: round(run.ttlSweepSeconds, 1),
      unit: 's',
    },
    ...run.ranges.flatMap(rangeFigures),
    ...targetFigures(run.ranges),
  ];
}

/** How the tenant was seeded: its size, the buckets, and where the time went (the console scenario seeds the same way). */
export function seedingFigures({ agents, items, seconds }: Seeded): Figure[] {
  return [
    { key: 'tracesSeeded', label: 'traces seeded (one tenant, 30 days)', value: items.summaries },
    { key: 'agents', label: 'agents', value: agents.length },
    { key: 'minuteBuckets', label: 'minute buckets written (one per tenant and minute)', value: items.minute },
    { key: 'hourBuckets', label: 'hour buckets written (tenant-wide and per agent)', value: items.hour },
    { key: 'dayBuckets', label: 'day buckets written (tenant-wide and per agent)', value: items.day },
    { key: 'seedSeconds', label: 'seeding, wall clock', value: round(seconds.total, 1), unit: 's' },
    { key: 'seedSummarySeconds', label: '… writing the trace summaries', value: round(seconds.summaries, 1), unit: 's' },
    { key: 'seedSummariesPerSecond', label: '… trace summaries written per second', value: Math.round(items.summaries / seconds.summaries), unit: 'items/s' },
    { key: 'seedRollupSeconds', label: '… writing the rollup buckets', value: round(seconds.rollups, 1), unit: 's' },
    {
      key: 'seedInMemorySeconds',
      label: '… making traces, items and rollups in memory',
      value: round(seconds.total - seconds.summaries - seconds.rollups, 1),
      unit: 's',
    },
  ];
}

function driftFigures(run: AnalyticsRun): Figure[] {
  return [
    { key: 'bulkItemsAsRepositoryWrites', label: 'bulk items = what putSummary and countTraces write', value: run.seeded.shapeMismatches.length === 0 },
    { key: 'bulkBucketsAsCompaction', label: 'bulk hour/day buckets = the compaction job’s (sample)', value: run.compactionMismatches.length === 0 },
  ];
}

function rangeFigures({ range, endpoints, scan, compared, mismatches }: RangeResult): Figure[] {
  const scanMs = ms(median(scan.totalSeconds));
  const k = range.key;
  return [
    { key: `traces${k}`, label: `${range.label}: traces in the range`, value: scan.traces },
    { key: `scan${k}Ms`, label: `${range.label}: scan baseline (listSummaries + exact aggregation), median`, value: scanMs, unit: 'ms' },
    { key: `scanList${k}Ms`, label: `${range.label}: … of which listSummaries`, value: ms(median(scan.listSeconds)), unit: 'ms' },
    ...endpoints.flatMap(({ endpoint, latenciesMs }): Figure[] => {
      const p50 = round(percentile(latenciesMs, 0.5), 1);
      return [
        { key: `${endpoint.key}${k}P50Ms`, label: `${range.label} ${endpoint.name} p50`, value: p50, unit: 'ms' },
        { key: `${endpoint.key}${k}P95Ms`, label: `${range.label} ${endpoint.name} p95`, value: round(percentile(latenciesMs, 0.95), 1), unit: 'ms' },
        { key: `${endpoint.key}${k}ScanRatio`, label: `${range.label} ${endpoint.name}: scan / p50`, value: round(scanMs / p50, 1) },
      ];
    }),
    { key: `compared${k}`, label: `${range.label}: answer values compared with the scan`, value: compared },
    { key: `correct${k}`, label: `${range.label}: counts, sums exact; percentiles within 1%`, value: mismatches.length === 0 },
  ];
}

function targetFigures(ranges: readonly RangeResult[]): Figure[] {
  const target = ranges.find((r) => r.range.key === TARGET_RANGE);
  if (!target) return [];
  const slowest = Math.max(...target.endpoints.map((e) => percentile(e.latenciesMs, 0.95)));
  return [
    { key: `slowest${TARGET_RANGE}P95Ms`, label: `slowest endpoint p95 over ${target.range.label}`, value: round(slowest, 1), unit: 'ms' },
    { key: `target${TARGET_RANGE}Met`, label: `every endpoint p95 ≤ ${TARGET_P95_MS} ms over ${target.range.label}`, value: slowest <= TARGET_P95_MS },
  ];
}

/** The first few failures, and how many more there are. */
export function limited(failures: readonly string[]): string[] {
  const more = failures.length - SHOWN_FAILURES;
  return [...failures.slice(0, SHOWN_FAILURES), ...(more > 0 ? [`… and ${more} more`] : [])];
}
