import { randomIds } from '#shared/adapters/ids.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import type { Db } from '#shared/store/client.ts';
import { seededRandom } from '../../support/random.ts';
import { writeInBatches } from '../batch-writes.ts';
import { stopwatch } from '../stats.ts';
import { bulkShapeMismatches } from './drift.ts';
import { bucketItems, type Item, type ItemContext, summaryItem } from './items.ts';
import { agentProfiles, type BenchAgent, tracesByDay } from './traces.ts';

export interface SeedPlan {
  traces: number;
  agents: number;
  /** Whole minutes: [startMs, endMs) is where the traces start. */
  startMs: number;
  endMs: number;
  /** BatchWriteItem calls in flight. */
  writers: number;
  seed: number;
}

export interface Seeded {
  agents: BenchAgent[];
  items: { summaries: number; minute: number; hour: number; day: number };
  /** Wall-clock seconds: all of it, and the parts spent writing each kind of item (the rest is making them). */
  seconds: { total: number; summaries: number; rollups: number };
  /** Where a bulk item is not what the repository itself writes; empty when they are the same. */
  shapeMismatches: string[];
}

/**
 * Seeds the tenant straight through the store layer: its agents, then one UTC day at a time the day's
 * trace summaries and every rollup bucket of them, all with batch writes.
 */
export async function seedTenant(db: Db, ctx: ItemContext, plan: SeedPlan, progress: (line: string) => void): Promise<Seeded> {
  const total = stopwatch();
  const agents = await createAgents(db, ctx.tenantId, plan.agents);
  const seeded: Seeded = { agents, items: { summaries: 0, minute: 0, hour: 0, day: 0 }, seconds: { total: 0, summaries: 0, rollups: 0 }, shapeMismatches: [] };
  for (const day of tracesByDay(seededRandom(plan.seed), agents, plan.traces, plan.startMs, plan.endMs)) {
    // Before the first day is written: applyToMinute must find its bucket new, as the bulk item assumes.
    if (seeded.items.summaries === 0) seeded.shapeMismatches = await bulkShapeMismatches(db, ctx, day[0]!);
    await writeDay(db, ctx, day, plan.writers, seeded);
    progress(`seeded ${seeded.items.summaries.toLocaleString('en-US')} of ${plan.traces.toLocaleString('en-US')} traces (${Math.round(total().seconds)} s)`);
  }
  seeded.seconds.total = total().seconds;
  return seeded;
}

async function writeDay(db: Db, ctx: ItemContext, traces: readonly TraceSummary[], writers: number, seeded: Seeded): Promise<void> {
  const summaries = traces.map((trace) => summaryItem(ctx, trace));
  const buckets = bucketItems(ctx, traces);
  seeded.seconds.summaries += await timedWrite(db, summaries, writers);
  seeded.seconds.rollups += await timedWrite(db, [...buckets.minute, ...buckets.hour, ...buckets.day], writers);
  seeded.items.summaries += summaries.length;
  seeded.items.minute += buckets.minute.length;
  seeded.items.hour += buckets.hour.length;
  seeded.items.day += buckets.day.length;
}

/** The agents as the worker creates them on first sight of their names. */
export async function createAgents(db: Db, tenantId: string, count: number): Promise<BenchAgent[]> {
  const agents = agentProfiles(count).map((profile) => ({ ...profile, id: randomIds.next('agt') }));
  const now = new Date().toISOString();
  const repository = agentsRepository(db);
  for (const agent of agents) {
    await repository.create({
      id: agent.id,
      tenantId,
      name: agent.name,
      description: '',
      profileSettings: { learningEnabled: true },
      source: 'implicit',
      createdAt: now,
      updatedAt: now,
    });
  }
  return agents;
}

/** Writes the items as BatchWriteItem calls of 25, `writers` calls in flight; answers the seconds it took. */
export async function timedWrite(db: Db, items: readonly Item[], writers: number): Promise<number> {
  const elapsed = stopwatch();
  await writeInBatches(db, items, writers);
  return elapsed().seconds;
}
