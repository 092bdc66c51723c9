import { SLOT_GRANULARITY } from '#shared/domain/analytics/buckets.ts';
import { ALL_AGENTS, groupBy, rollupOf, rollupsByBucket, tracesByBucket } from '#shared/domain/analytics/rollup.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import { minuteParts, rollupItems, slotsOf, traceKey } from '#shared/store/rollups.ts';
import { summaryItem as storedSummaryItem } from '#shared/store/traces.ts';

export type Item = Record<string, unknown>;

/** Where every bulk item goes and what it carries besides its data. */
export interface ItemContext {
  tenantId: string;
  /** The span write a summary was made from (`putSummary`'s revision). */
  revision: number;
  expiresAt: number;
}

/** A trace summary item exactly as `tracesRepository.putSummary` writes it. */
export const summaryItem = (ctx: ItemContext, summary: TraceSummary): Item => storedSummaryItem(ctx.tenantId, summary, ctx.revision, ctx.expiresAt);

/** A minute bucket as `rollupsRepository.countTraces` leaves a new one after counting these traces in one write. */
export function minuteItem(ctx: ItemContext, startMs: number, traces: readonly TraceSummary[]): Item {
  return rollupItems.minute(ctx.tenantId, startMs, minuteParts(traces), Buffer.concat(traces.map((t) => traceKey(t.traceId))), 1, ctx.expiresAt);
}

/** The tenant-wide hour or day bucket of these traces, and each agent's, as the compaction recomputes them. */
function coarseItems(ctx: ItemContext, granularity: 'hour' | 'day', startMs: number, traces: readonly TraceSummary[]): Item[] {
  const parts = minuteParts(traces);
  const byAgent = [...groupBy(traces, (t) => t.agentId)].filter((entry): entry is [string, TraceSummary[]] => entry[0] !== null);
  const slots = (of: readonly TraceSummary[]) => slotsOf(granularity, startMs, rollupsByBucket(of, SLOT_GRANULARITY[granularity]));
  return [
    rollupItems.coarse(ctx.tenantId, ALL_AGENTS, granularity, startMs, rollupOf(traces), slots(traces), parts, ctx.expiresAt),
    ...byAgent.map(([agentId, own]) =>
      rollupItems.coarse(ctx.tenantId, agentId, granularity, startMs, parts.get(agentId)!, slots(own), new Map(), ctx.expiresAt),
    ),
  ];
}

export interface BucketItems {
  minute: Item[];
  hour: Item[];
  day: Item[];
}

/**
 * Every rollup bucket of the finished traces of whole UTC days: the tenant's minute buckets, each
 * holding all its traces (what the worker makes of one batch carrying them), and the tenant-wide and
 * per-agent hours and days, as the compaction job would recompute them from those minutes.
 */
export function bucketItems(ctx: ItemContext, traces: readonly TraceSummary[]): BucketItems {
  return {
    minute: [...tracesByBucket(traces, 'minute')].map(([startMs, group]) => minuteItem(ctx, startMs, group)),
    hour: [...tracesByBucket(traces, 'hour')].flatMap(([startMs, group]) => coarseItems(ctx, 'hour', startMs, group)),
    day: [...tracesByBucket(traces, 'day')].flatMap(([startMs, group]) => coarseItems(ctx, 'day', startMs, group)),
  };
}
