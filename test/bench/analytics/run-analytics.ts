import { BUCKET_MS, bucketStart } from '#shared/domain/analytics/buckets.ts';
import { ALL_AGENTS } from '#shared/domain/analytics/rollup.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { epochSeconds } from '#shared/store/client.ts';
import type { ScenarioResult } from '../scenario.ts';
import { type BenchService, serviceDb, signUp, startBenchService } from '../service.ts';
import { stopwatch } from '../stats.ts';
import { compareAnswers } from './compare.ts';
import { compactionMismatches } from './drift.ts';
import { type AnalyticsRun, figures, limited } from './figures.ts';
import type { ItemContext } from './items.ts';
import { type QueryRange, type ScanTiming, timeEndpoints, timeScan } from './measure.ts';
import { seedTenant } from './seed.ts';

const SEED = 20_260_530;
/** A tenant with a million traces a month is on a paid plan; its retention sets the items' expiry. */
const PLAN = 'pro';
/** Nothing the bench sends may be throttled: neither the sign-up nor the analytics requests. */
const RATE_LIMITS = { auth: 1000, standard: 1_000_000 };
export const SEEDED_DAYS = 30;
const RANGES = [
  { key: '24h', label: '24 h', days: 1 },
  { key: '7d', label: '7 d', days: 7 },
  { key: '30d', label: '30 d', days: 30 },
] as const;
/** Hours (across the seeded month, in every scope) the compaction job recomputes to check the bulk hour and day buckets. */
const COMPACTION_SAMPLE_HOURS = 6;

export interface AnalyticsParameters {
  traces: number;
  agents: number;
  writers: number;
  warmupRounds: number;
  repetitions: number;
  scanRepetitions: number;
}

const parametersOf = (flags: Record<string, number>): AnalyticsParameters => ({
  traces: flags['traces']!,
  agents: flags['agents']!,
  writers: flags['writers']!,
  warmupRounds: flags['warmup-rounds']!,
  repetitions: flags['repetitions']!,
  scanRepetitions: flags['scan-repetitions']!,
});

/** The whole scenario in this process: a local service, the seeding, the timings and the comparisons. */
export async function runAnalytics(flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  const p = parametersOf(flags);
  const service = await startBenchService(RATE_LIMITS);
  try {
    const run = await measure(service, p, progress);
    const failures = [...run.seeded.shapeMismatches, ...run.compactionMismatches, ...run.ranges.flatMap((r) => r.mismatches)];
    return { parameters: flags, figures: figures(run), failures: limited(failures) };
  } finally {
    await service.stop();
  }
}

async function measure(service: BenchService, p: AnalyticsParameters, progress: (line: string) => void): Promise<AnalyticsRun> {
  const { tenantId, apiKey } = await signUp(service, PLAN);
  const endMs = bucketStart(Date.now(), 'minute');
  const { seeded, compactionMismatches } = await seedAndCheck(service, itemContext(tenantId), p, endMs, progress);

  const ranges: QueryRange[] = RANGES.map(({ key, label, days }) => ({ key, label, startMs: endMs - days * BUCKET_MS.day, endMs }));
  progress(`timing the six endpoints over ${ranges.map((r) => r.label).join(', ')}: ${p.warmupRounds} warm-up rounds, then ${p.repetitions}`);
  const endpoints = await timeEndpoints(service, apiKey, ranges, p.warmupRounds, p.repetitions);
  const ttlSweepSeconds = await timeTtlSweep(service, progress);

  const scans: ScanTiming[] = [];
  for (const range of ranges) {
    progress(`scan baseline over ${range.label}: ${p.scanRepetitions} × reading every summary and exact aggregation`);
    scans.push(await timeScan(serviceDb(), tenantId, range, p.scanRepetitions));
  }
  return { seeded, compactionMismatches, ttlSweepSeconds, ranges: compareAnswers(endpoints, scans) };
}

/** Seeds the month up to `endMs`, then has the compaction job recompute a sample of it to compare. */
async function seedAndCheck(service: BenchService, ctx: ItemContext, p: AnalyticsParameters, endMs: number, progress: (line: string) => void) {
  const db = serviceDb();
  const startMs = endMs - SEEDED_DAYS * BUCKET_MS.day;
  progress(`seeding ${p.traces.toLocaleString('en-US')} traces over ${SEEDED_DAYS} days with ${p.writers} batch writes in flight`);
  const seeded = await seedTenant(db, ctx, { traces: p.traces, agents: p.agents, startMs, endMs, writers: p.writers, seed: SEED }, progress);

  progress(`having the compaction job recompute ${COMPACTION_SAMPLE_HOURS} hours of every scope, to compare with the bulk buckets`);
  const scopes = [ALL_AGENTS, ...seeded.agents.map((a) => a.id)];
  const runCompaction = () => service.runSchedule('analytics-compaction');
  return { seeded, compactionMismatches: await compactionMismatches(db, ctx, scopes, sampleHours(startMs, endMs), runCompaction) };
}

/** The local runtime sweeps expired items off the whole table every minute, in this thread (not during the bench): how long one sweep takes here. */
async function timeTtlSweep(service: BenchService, progress: (line: string) => void): Promise<number> {
  progress('timing one TTL sweep of the table');
  const elapsed = stopwatch();
  await service.sweepExpired();
  return elapsed().seconds;
}

function itemContext(tenantId: string): ItemContext {
  const now = new Date();
  return {
    tenantId,
    revision: now.getTime(),
    expiresAt: epochSeconds(now) + PLANS[PLAN].features.retention * (BUCKET_MS.day / 1000),
  };
}

/** Whole hours spread evenly over [startMs, endMs). */
function sampleHours(startMs: number, endMs: number): number[] {
  const first = bucketStart(startMs + BUCKET_MS.hour - 1, 'hour');
  const hours = Math.floor((endMs - first) / BUCKET_MS.hour);
  return Array.from({ length: COMPACTION_SAMPLE_HOURS }, (_, i) => first + Math.floor((i * hours) / COMPACTION_SAMPLE_HOURS) * BUCKET_MS.hour);
}
